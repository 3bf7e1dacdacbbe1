// The webhook idiom of the peer (workload 16): a defaulting and a validating webhook for Website, laid out
// as `kubebuilder create webhook --defaulting --programmatic-validation` scaffolds them — a Defaulter and a
// Validator on the typed kind, registered with ctrl.NewWebhookManagedBy, served by the manager's webhook
// server from tls.crt/tls.key in a certificate directory. No controller runs in this mode.
//
// Protocol with the Node driver: stdout "ready" once the webhook server answers; stdin "stop" or EOF exits.
package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// websiteDefaulter fills in the replicas a Website leaves out.
type websiteDefaulter struct{}

// Default implements admission.Defaulter[*Website].
func (d *websiteDefaulter) Default(_ context.Context, site *Website) error {
	if site.Spec.Replicas == nil {
		one := int64(1)
		site.Spec.Replicas = &one
	}
	if site.Spec.Content == "" {
		site.Spec.Content = "default"
	}
	return nil
}

// websiteValidator refuses a Website without a domain or with more than 10 replicas.
type websiteValidator struct{}

func (v *websiteValidator) validate(site *Website) (admission.Warnings, error) {
	var errs field.ErrorList
	if site.Spec.Domain == "" {
		errs = append(errs, field.Required(field.NewPath("spec", "domain"), "a Website needs a domain"))
	}
	if site.Spec.Replicas != nil && *site.Spec.Replicas > 10 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), *site.Spec.Replicas, "must be at most 10"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(GroupVersion.WithKind("Website").GroupKind(), site.Name, errs)
	}
	return nil, nil
}

// ValidateCreate implements admission.Validator[*Website].
func (v *websiteValidator) ValidateCreate(_ context.Context, site *Website) (admission.Warnings, error) {
	return v.validate(site)
}

// ValidateUpdate implements admission.Validator[*Website].
func (v *websiteValidator) ValidateUpdate(_ context.Context, _, site *Website) (admission.Warnings, error) {
	return v.validate(site)
}

// ValidateDelete implements admission.Validator[*Website].
func (v *websiteValidator) ValidateDelete(_ context.Context, _ *Website) (admission.Warnings, error) {
	return nil, nil
}

// runWebhooks serves the two webhooks on 127.0.0.1:port until stdin says stop.
func runWebhooks(port int, certDir string) {
	ctrl.SetLogger(logr.Discard())
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	scheme := runtime.NewScheme()
	_ = SchemeBuilder.AddToScheme(scheme)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:        scheme,
		Metrics:       server.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir}),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &Website{}).
		WithDefaulter(&websiteDefaulter{}).
		WithValidator(&websiteValidator{}).
		Complete(); err != nil {
		fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "controller-runtime peer:", err)
			os.Exit(1)
		}
	}()
	started := mgr.GetWebhookServer().StartedChecker()
	for started(&http.Request{}) != nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("ready " + strconv.Itoa(port))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if strings.TrimSpace(in.Text()) == "stop" {
			break
		}
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
}
