// The controller-runtime peer of `make bench` (workloads 2, 3 and scale): the Website operator written the
// way a Go author would — For(Website) as unstructured, Owns(ConfigMap), reads from the manager's cache,
// controllerutil.CreateOrUpdate for the ConfigMap, a merge patch of status.observedGeneration.
//
// Protocol with the Node driver (bench/operators/controller-runtime-operator.ts), one line per message:
// stdout "loaded" once the manager is built; stdin "start" starts it; stdin "count" answers
// {"calls":N,"errors":M,"cpuMs":C,"maxRssKiB":R} on stdout; stdin "stop" or EOF exits.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var websiteGVK = schema.GroupVersionKind{Group: "bench.reconcilekit.io", Version: "v1", Kind: "Website"}

type reconciler struct {
	client.Client
	scheme *runtime.Scheme
	calls  atomic.Int64
	errors atomic.Int64
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.calls.Add(1)
	res, err := r.reconcile(ctx, req)
	if err != nil {
		r.errors.Add(1)
	}
	return res, err
}

func (r *reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	site := &unstructured.Unstructured{}
	site.SetGroupVersionKind(websiteGVK)
	if err := r.Get(ctx, req.NamespacedName, site); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	domain, _, _ := unstructured.NestedString(site.Object, "spec", "domain")
	content, _, _ := unstructured.NestedString(site.Object, "spec", "content")
	replicas, found, _ := unstructured.NestedInt64(site.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: site.GetName() + "-site", Namespace: site.GetNamespace()}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["app.kubernetes.io/managed-by"] = "bench"
		cm.Labels["website"] = site.GetName()
		cm.Data = map[string]string{"domain": domain, "index.html": content, "replicas": strconv.FormatInt(replicas, 10)}
		return controllerutil.SetControllerReference(site, cm, r.scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	observed, found, _ := unstructured.NestedInt64(site.Object, "status", "observedGeneration")
	if !found || observed != site.GetGeneration() {
		patch := []byte(fmt.Sprintf(`{"status":{"observedGeneration":%d}}`, site.GetGeneration()))
		if err := r.Status().Patch(ctx, site, client.RawPatch(types.MergePatchType, patch)); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{}, nil
}

func usage() (cpuMs float64, maxRssKiB int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec)*1000 + float64(ru.Utime.Usec+ru.Stime.Usec)/1000
	return cpu, ru.Maxrss
}

func main() {
	namespace := flag.String("namespace", "default", "namespace of the Websites")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	flag.Parse()
	// No logging, as the Node systems under test log nothing (and controller-runtime would otherwise print a
	// stack trace once its delegating logger gives up waiting for SetLogger).
	ctrl.SetLogger(logr.Discard())

	// --kubeconfig is controller-runtime's own flag (else $KUBECONFIG).
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	// A Go operator raises client-go's default 5 QPS / burst 10 limiter; the Node peers have none.
	cfg.QPS, cfg.Burst = 1000, 2000
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: server.Options{BindAddress: "0"},
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	r := &reconciler{Client: mgr.GetClient(), scheme: scheme}
	site := &unstructured.Unstructured{}
	site.SetGroupVersionKind(websiteGVK)
	if err := ctrl.NewControllerManagedBy(mgr).
		For(site).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(r); err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(line string) { _, _ = out.WriteString(line + "\n"); _ = out.Flush() }
	say("loaded")
	ctx, cancel := context.WithCancel(context.Background())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "start":
			go func() {
				if err := mgr.Start(ctx); err != nil {
					fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
					os.Exit(1)
				}
			}()
			say("started")
		case "count":
			cpu, rss := usage()
			b, _ := json.Marshal(map[string]any{"calls": r.calls.Load(), "errors": r.errors.Load(), "cpuMs": cpu, "maxRssKiB": rss})
			say(string(b))
		case "stop":
			cancel()
			os.Exit(0)
		}
	}
	cancel()
}
