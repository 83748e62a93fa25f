package fleet

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"
)

// k8sKinds are the Kubernetes objects deploy/ may hold, by apiVersion and
// kind, each a new typed object from k8s.io/api.
var k8sKinds = map[[2]string]func() any{
	{"apps/v1", "DaemonSet"}: func() any { return &appsv1.DaemonSet{} },
	{"v1", "Pod"}:            func() any { return &corev1.Pod{} },
	{"resource.k8s.io/v1", "ResourceClaimTemplate"}: func() any { return &resourcev1.ResourceClaimTemplate{} },
}

// TestManifestsDecodeStrictly decodes every Kubernetes object in deploy/
// into its k8s.io/api type with sigs.k8s.io/yaml's strict mode: an unknown
// or misplaced field, a wrong type or a duplicate key fails. Prometheus
// rule files (groups:, rule_files:) are promtool's (TestAlertRules).
func TestManifestsDecodeStrictly(t *testing.T) {
	files, err := filepath.Glob("../../deploy/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objects := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Groups     []any  `json:"groups"`
				RuleFiles  []any  `json:"rule_files"`
			}
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Errorf("%s document %d: %v", f, i, err)
				continue
			}
			if head.APIVersion == "" && (head.Groups != nil || head.RuleFiles != nil) {
				continue
			}
			newObj, ok := k8sKinds[[2]string{head.APIVersion, head.Kind}]
			if !ok {
				t.Errorf("%s document %d: %s %s: not a kind this test knows; add it to k8sKinds", f, i, head.APIVersion, head.Kind)
				continue
			}
			obj := newObj()
			if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
				t.Errorf("%s document %d (%s): %v", f, i, head.Kind, err)
				continue
			}
			objects++
			checkObject(t, f, obj)
		}
	}
	// The decoding is strict: a field in the wrong place fails.
	bad := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nspec:\n  spec:\n    devices:\n      requests:\n        - name: gpu\n          deviceClassName: gpu.example.com\n"
	if err := yaml.UnmarshalStrict([]byte(bad), &resourcev1.ResourceClaimTemplate{}); err == nil {
		t.Error("a v1beta1-style deviceClassName outside exactly: decoded without error")
	}
	if objects < 3 {
		t.Errorf("decoded %d objects in deploy/, want at least 3 (the DaemonSet, the claim template, the pod)", objects)
	}
}

// checkObject checks what the API server would check beyond the schema
// that the examples rely on.
func checkObject(t *testing.T, file string, obj any) {
	t.Helper()
	switch o := obj.(type) {
	case *resourcev1.ResourceClaimTemplate:
		names := map[string]bool{}
		for _, r := range o.Spec.Spec.Devices.Requests {
			if r.Exactly == nil || r.Exactly.DeviceClassName == "" {
				t.Errorf("%s: request %s names no device class", file, r.Name)
			}
			names[r.Name] = true
		}
		pcieRoot := false
		for _, c := range o.Spec.Spec.Devices.Constraints {
			for _, r := range c.Requests {
				if !names[r] {
					t.Errorf("%s: constraint on request %q, which the claim does not make", file, r)
				}
			}
			pcieRoot = pcieRoot || (c.MatchAttribute != nil && *c.MatchAttribute == "resource.kubernetes.io/pcieRoot" && len(c.Requests) == 2)
		}
		if !pcieRoot {
			t.Errorf("%s: no matchAttribute resource.kubernetes.io/pcieRoot constraint on the GPU and the NIC", file)
		}
	case *corev1.Pod:
		claims := map[string]bool{}
		for _, c := range o.Spec.ResourceClaims {
			claims[c.Name] = true
		}
		for _, c := range o.Spec.Containers {
			for _, rc := range c.Resources.Claims {
				if !claims[rc.Name] {
					t.Errorf("%s: container %s uses claim %s, which the pod does not declare", file, c.Name, rc.Name)
				}
			}
		}
		for k, v := range o.Spec.NodeSelector {
			if strings.HasPrefix(k, NFDPrefix+"gdtopo.") && LabelValue(v) != v {
				t.Errorf("%s: nodeSelector %s=%s: not a label value gdtopo writes", file, k, v)
			}
		}
	case *appsv1.DaemonSet:
		if o.Spec.Selector == nil {
			t.Errorf("%s: a DaemonSet without a selector", file)
		}
		// A probe's gdtopo reads a source the container mounts, and a
		// pod it keeps unready does not stall a rolling update.
		for _, c := range o.Spec.Template.Spec.Containers {
			p := c.ReadinessProbe
			if p == nil || p.Exec == nil {
				continue
			}
			cmd := p.Exec.Command
			if len(cmd) < 3 || !strings.HasSuffix(cmd[0], "/gdtopo") || cmd[1] != "check" {
				t.Errorf("%s: container %s's readiness probe %q is not gdtopo check", file, c.Name, cmd)
				continue
			}
			mounted := false
			for _, m := range c.VolumeMounts {
				mounted = mounted || strings.HasPrefix(m.MountPath, strings.TrimSuffix(cmd[2], "/")+"/")
			}
			if !mounted {
				t.Errorf("%s: container %s's probe reads %s, which it does not mount", file, c.Name, cmd[2])
			}
			if p.TimeoutSeconds == 0 || p.PeriodSeconds <= p.TimeoutSeconds {
				t.Errorf("%s: container %s's probe: timeout %ds, period %ds", file, c.Name, p.TimeoutSeconds, p.PeriodSeconds)
			}
			ru := o.Spec.UpdateStrategy.RollingUpdate
			if ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.String() != "100%" {
				t.Errorf("%s: a readiness probe that keeps a pod unready on purpose, and a rolling update that waits for readiness", file)
			}
		}
	}
}

// stripComments drops YAML comment lines.
func stripComments(doc string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
