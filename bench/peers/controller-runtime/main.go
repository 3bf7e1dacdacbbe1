// The controller-runtime peer of `make bench`. Two idioms of the same Website operator:
//
//   - --idiom=tuned (workloads 2, 3 and 7): For(Website) as unstructured, Owns(ConfigMap), reads from the
//     manager's cache, controllerutil.CreateOrUpdate for the ConfigMap, a merge patch of
//     status.observedGeneration, client-side rate limit set to 1000 QPS, no logging.
//   - --idiom=docs (workload 9): as kubebuilder's getting-started tutorial teaches — a typed Website
//     (website_types.go), the manager's default client (reads from its cache), r.Get / r.Create / r.Update
//     of the ConfigMap, r.Status().Update for observedGeneration, ctrl.GetConfig's defaults (no client-side
//     rate limit since v0.21), zap's development logger on stderr, no predicates.
//
// Protocol with the Node driver (bench/operators/controller-runtime-operator.ts), one line per message:
// stdout "loaded" once the manager is built (with --autostart the manager then starts at once); stdin "start"
// starts it; stdin "count" answers {"calls":N,"errors":M,"cpuMs":C,"maxRssKiB":R,"rssKiB":S,
// "loadedAtMs":L,"firstCallAtMs":F} on stdout (the last two: Unix ms); stdin "stop" or EOF exits.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var websiteGVK = schema.GroupVersionKind{Group: "bench.reconcilekit.io", Version: "v1", Kind: "Website"}

// counted wraps a reconciler with the counts the driver asks for.
type counted struct {
	inner     reconcile.Reconciler
	calls     atomic.Int64
	errors    atomic.Int64
	firstCall atomic.Int64 // Unix µs of the first Reconcile call, 0 before
}

func (c *counted) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if c.calls.Add(1) == 1 {
		c.firstCall.Store(time.Now().UnixMicro())
	}
	res, err := c.inner.Reconcile(ctx, req)
	if err != nil {
		c.errors.Add(1)
	}
	return res, err
}

// reconciler is the tuned idiom (unstructured, CreateOrUpdate, merge patch of the status).
type reconciler struct {
	client.Client
	scheme *runtime.Scheme
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.reconcile(ctx, req)
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

// docsReconciler is the getting-started idiom: typed objects from the manager's client, Get → Create or
// Update of the ConfigMap, Status().Update of the Website.
type docsReconciler struct {
	client.Client
	scheme *runtime.Scheme
}

func (r *docsReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	site := &Website{}
	if err := r.Get(ctx, req.NamespacedName, site); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	replicas := int64(1)
	if site.Spec.Replicas != nil {
		replicas = *site.Spec.Replicas
	}
	data := map[string]string{"domain": site.Spec.Domain, "index.html": site.Spec.Content, "replicas": strconv.FormatInt(replicas, 10)}
	cm := &corev1.ConfigMap{}
	err := r.Get(ctx, types.NamespacedName{Name: site.Name + "-site", Namespace: site.Namespace}, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name:      site.Name + "-site",
				Namespace: site.Namespace,
				Labels:    map[string]string{"app.kubernetes.io/managed-by": "bench", "website": site.Name},
			},
			Data: data,
		}
		if err := ctrl.SetControllerReference(site, cm, r.scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, cm); err != nil {
			return ctrl.Result{}, err
		}
	} else if err != nil {
		return ctrl.Result{}, err
	} else if !reflect.DeepEqual(cm.Data, data) {
		cm.Data = data
		if err := r.Update(ctx, cm); err != nil {
			return ctrl.Result{}, err
		}
	}
	if site.Status.ObservedGeneration != site.Generation {
		site.Status.ObservedGeneration = site.Generation
		if err := r.Status().Update(ctx, site); err != nil {
			return ctrl.Result{}, err
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

// rssKiB is the resident set size now (VmRSS of /proc/self/status), 0 when unreadable.
func rssKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				v, _ := strconv.ParseInt(fields[1], 10, 64)
				return v
			}
		}
	}
	return 0
}

func main() {
	namespace := flag.String("namespace", "default", "namespace of the Websites")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	idiom := flag.String("idiom", "tuned", "tuned (workloads 2, 3, 7) or docs (workload 9)")
	autostart := flag.Bool("autostart", false, "start the manager as soon as it is built")
	webhookPort := flag.Int("webhook-port", 0, "serve the Website webhooks on this port instead (workload 16)")
	certDir := flag.String("cert-dir", "", "directory of tls.crt and tls.key for --webhook-port")
	flag.Parse()
	if *webhookPort > 0 {
		runWebhooks(*webhookPort, *certDir)
		return
	}
	docs := *idiom == "docs"
	if docs {
		// kubebuilder's main.go: zap, development mode, on stderr (the driver sends it to a file).
		ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		// No logging, as the Node systems of workloads 2, 3 and 7 log nothing (and controller-runtime would
		// otherwise print a stack trace once its delegating logger gives up waiting for SetLogger).
		ctrl.SetLogger(logr.Discard())
	}

	// --kubeconfig is controller-runtime's own flag (else $KUBECONFIG).
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	if !docs {
		// The tuned idiom sets a generous client-side limit explicitly (ctrl.GetConfig leaves it off).
		cfg.QPS, cfg.Burst = 1000, 2000
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = SchemeBuilder.AddToScheme(scheme)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: server.Options{BindAddress: "0"},
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	var forObject client.Object
	var inner reconcile.Reconciler
	if docs {
		forObject = &Website{}
		inner = &docsReconciler{Client: mgr.GetClient(), scheme: scheme}
	} else {
		site := &unstructured.Unstructured{}
		site.SetGroupVersionKind(websiteGVK)
		forObject = site
		inner = &reconciler{Client: mgr.GetClient(), scheme: scheme}
	}
	r := &counted{inner: inner}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(forObject).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(r); err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(line string) { _, _ = out.WriteString(line + "\n"); _ = out.Flush() }
	loadedAt := time.Now().UnixMicro()
	say("loaded")
	ctx, cancel := context.WithCancel(context.Background())
	start := func() {
		go func() {
			if err := mgr.Start(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
				os.Exit(1)
			}
		}()
	}
	if *autostart {
		start()
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "start":
			if !*autostart {
				start()
			}
			say("started")
		case "count":
			cpu, rss := usage()
			b, _ := json.Marshal(map[string]any{
				"calls": r.calls.Load(), "errors": r.errors.Load(), "cpuMs": cpu, "maxRssKiB": rss, "rssKiB": rssKiB(),
				"loadedAtMs": float64(loadedAt) / 1000, "firstCallAtMs": float64(r.firstCall.Load()) / 1000,
			})
			say(string(b))
		case "stop":
			cancel()
			os.Exit(0)
		}
	}
	cancel()
}
