package relay

import (
	"fmt"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// metricsRegistry is the registry /metrics serves, which can share
// hookrelay's own collectors with an application's registerer (see
// Embedding.Registerer): every collector registered through it is
// registered there too, from the moment it is shared until unshare,
// those registered before included. The Go runtime's and the process's
// collectors are registered on the Registry alone, as is promhttp's own
// counter: an application has its own, under the same names. Every name
// registered through it starts with hookrelay_, so that it never collides
// with an application's.
type metricsRegistry struct {
	*prometheus.Registry

	mu     sync.Mutex
	own    []prometheus.Collector // guarded by mu: registered through Register
	shared prometheus.Registerer  // guarded by mu; nil until share
}

func newMetricsRegistry() *metricsRegistry {
	return &metricsRegistry{Registry: prometheus.NewRegistry()}
}

// Register registers c on the Registry and, once shared, on the
// application's registerer; c is registered on both or on neither.
func (m *metricsRegistry) Register(c prometheus.Collector) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.Registry.Register(c); err != nil {
		return err
	}
	if m.shared != nil {
		if err := m.shared.Register(c); err != nil {
			m.Registry.Unregister(c)
			return sharingError(err)
		}
	}
	m.own = append(m.own, c)
	return nil
}

// MustRegister registers each of cs as Register does, and panics on the
// first that fails.
func (m *metricsRegistry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := m.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister unregisters c from the Registry and, once shared, from the
// application's registerer; it reports whether the Registry had it.
func (m *metricsRegistry) Unregister(c prometheus.Collector) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shared != nil {
		m.shared.Unregister(c)
	}
	m.own = slices.DeleteFunc(m.own, func(x prometheus.Collector) bool { return x == c })
	return m.Registry.Unregister(c)
}

// share registers the collectors registered so far on reg, and those
// registered later as they come, until unshare. When one cannot be
// registered there (a name the application uses itself, or a registerer
// another Relay shares), none stays registered on reg.
func (m *metricsRegistry) share(reg prometheus.Registerer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, c := range m.own {
		if err := reg.Register(c); err != nil {
			for _, done := range m.own[:i] {
				reg.Unregister(done)
			}
			return sharingError(err)
		}
	}
	m.shared = reg
	return nil
}

// unshare unregisters every collector from the application's registerer,
// so that a Relay started after this one can register there again.
func (m *metricsRegistry) unshare() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shared == nil {
		return
	}
	for _, c := range m.own {
		m.shared.Unregister(c)
	}
	m.shared = nil
}

// sharingError is the error of a collector the application's registerer
// refused. It keeps err's text but not err itself: a caller that adopts
// the collector an AlreadyRegisteredError names (see delivery's adopt)
// must not adopt one of the application's, or another Relay's.
func sharingError(err error) error {
	return fmt.Errorf("register hookrelay's metrics on the application's registerer: %s "+
		"(give each Relay a registerer of its own, e.g. prometheus.WrapRegistererWith)", err.Error())
}
