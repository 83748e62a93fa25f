package fleet

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The DaemonSet, in the fields the test checks.
type daemonSet struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		UpdateStrategy struct {
			RollingUpdate struct {
				MaxUnavailable string `yaml:"maxUnavailable"`
			} `yaml:"rollingUpdate"`
		} `yaml:"updateStrategy"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				NodeSelector map[string]string `yaml:"nodeSelector"`
				Containers   []struct {
					Image string `yaml:"image"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Command        []string `yaml:"command"`
					Args           []string `yaml:"args"`
					ReadinessProbe *struct {
						Exec struct {
							Command []string `yaml:"command"`
						} `yaml:"exec"`
						PeriodSeconds  int `yaml:"periodSeconds"`
						TimeoutSeconds int `yaml:"timeoutSeconds"`
					} `yaml:"readinessProbe"`
					SecurityContext struct {
						Privileged               *bool `yaml:"privileged"`
						AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
						ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
						Capabilities             struct {
							Drop []string `yaml:"drop"`
							Add  []string `yaml:"add"`
						} `yaml:"capabilities"`
					} `yaml:"securityContext"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						ReadOnly  bool   `yaml:"readOnly"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name     string `yaml:"name"`
					HostPath *struct {
						Path string `yaml:"path"`
						Type string `yaml:"type"`
					} `yaml:"hostPath"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func TestDaemonSet(t *testing.T) {
	b, err := os.ReadFile("../../deploy/gdtopo-nfd-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds daemonSet
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(false)
	if err := dec.Decode(&ds); err != nil {
		t.Fatal(err)
	}
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" {
		t.Errorf("%s %s, want apps/v1 DaemonSet", ds.APIVersion, ds.Kind)
	}
	if ns := ds.Metadata.Namespace; ns != "node-feature-discovery" && ns != "kube-system" {
		t.Errorf("namespace %q", ns)
	}
	spec := ds.Spec.Template.Spec
	for k, v := range ds.Spec.Selector.MatchLabels {
		if ds.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
		}
	}
	if spec.NodeSelector["nvidia.com/gpu.present"] != "true" {
		t.Errorf("nodeSelector %v, want nvidia.com/gpu.present: \"true\"", spec.NodeSelector)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	if !strings.Contains(c.Image, "REPLACE-ME") {
		t.Errorf("image %q: the placeholder should be plain to see", c.Image)
	}
	script := strings.Join(append(c.Command, c.Args...), " ")
	for _, want := range []string{"gdtopo check /host -o nfd --nfd-expiry \"$LABEL_LIFETIME\"", `mv -f "$FEATURES_D/.gdtopo.tmp" "$FEATURES_D/gdtopo"`, `"$rc" -eq 3`} {
		if !strings.Contains(script, want) {
			t.Errorf("the container's script lacks %q", want)
		}
	}
	// The readiness probe is the one docs/fleet.md documents, -o terse's
	// health check; it ends well within its period, and a rolling update
	// does not wait for a pod a critical finding keeps unready.
	if p := c.ReadinessProbe; p == nil {
		t.Error("no readiness probe: docs/fleet.md's Kubernetes probe line")
	} else {
		if want := documentedProbe(t); !slices.Equal(p.Exec.Command, want) {
			t.Errorf("readiness probe %q, docs/fleet.md's %q", p.Exec.Command, want)
		}
		if !slices.Contains(p.Exec.Command, "terse") || !slices.Contains(p.Exec.Command, "/host") {
			t.Errorf("readiness probe %q: want check /host -o terse", p.Exec.Command)
		}
		if p.TimeoutSeconds < 10 || p.PeriodSeconds <= p.TimeoutSeconds {
			t.Errorf("readiness probe: timeout %ds, period %ds; want a timeout of 10s or more, within the period", p.TimeoutSeconds, p.PeriodSeconds)
		}
		if mu := ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable; mu != "100%" {
			t.Errorf("maxUnavailable %q with a readiness probe: a node with a critical finding would stall the rollout", mu)
		}
	}
	// The labels outlive a missed run or two, never the pod for long.
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	life, err := time.ParseDuration(env["LABEL_LIFETIME"])
	interval, err2 := strconv.Atoi(env["INTERVAL_SECONDS"])
	if err != nil || err2 != nil || life <= time.Duration(interval)*time.Second || life > 24*time.Hour {
		t.Errorf("LABEL_LIFETIME %q, INTERVAL_SECONDS %q: want a lifetime above the interval and within a day", env["LABEL_LIFETIME"], env["INTERVAL_SECONDS"])
	}
	sc := c.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Privileged == nil || *sc.Privileged ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || len(sc.Capabilities.Add) > 0 ||
		strings.Join(sc.Capabilities.Drop, ",") != "ALL" {
		t.Errorf("securityContext %+v: want a read-only root, no privilege, all capabilities dropped", sc)
	}
	hostPaths := map[string]string{}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	mounts := map[string]bool{} // host path -> read-only
	for _, m := range c.VolumeMounts {
		p, ok := hostPaths[m.Name]
		if !ok {
			t.Errorf("mount %s: no such hostPath volume", m.Name)
		}
		mounts[p] = m.ReadOnly
		if m.MountPath == "/etc/kubernetes/node-feature-discovery/features.d" && p != m.MountPath {
			t.Errorf("features.d is mounted from %s", p)
		}
	}
	for p, ro := range map[string]bool{"/sys": true, "/proc/cpuinfo": true, "/proc/cmdline": true,
		"/etc/kubernetes/node-feature-discovery/features.d": false} {
		if got, ok := mounts[p]; !ok || got != ro {
			t.Errorf("hostPath %s: mounted %v, read-only %v; want mounted, read-only %v", p, ok, got, ro)
		}
	}
	if len(mounts) != 4 {
		t.Errorf("%d host paths mounted, want 4: %v", len(mounts), mounts)
	}
}

// documentedProbe is the readiness probe's command in docs/fleet.md's
// Kubernetes example.
func documentedProbe(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`readinessProbe:\n\s+exec:\n\s+command: (\[.*\])\n`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/fleet.md: no readinessProbe example")
	}
	var cmd []string
	if err := yaml.Unmarshal(m[1], &cmd); err != nil {
		t.Fatalf("docs/fleet.md's probe: %v", err)
	}
	return cmd
}
