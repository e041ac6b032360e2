package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestDoctor runs `hookrelay doctor` on both drivers against what an
// operator meets: a broken config, a database not migrated yet, a relay
// running, a clock behind the provider's, and a port held by another
// program. It exits 1 on every problem, 0 when there is none.
func TestDoctor(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)

			// A broken config names its key.
			addrs := freeAddrs(t, 2)
			bad := writeConfig(t, db, addrs[0], addrs[1], "sources:\n  - {name: stripe, verify: strpe}\n")
			r := wantRun(t, nil, 1, "doctor", "--config", bad)
			contains(t, "doctor on a bad config", squeeze(r.stdout), "config PROBLEM", `sources[0].verify: unknown scheme "strpe"`)

			// A database without the schema: every migration pending.
			cfg := writeConfig(t, db, addrs[0], addrs[1], stripeSource)
			if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
				if err := os.WriteFile(path, nil, 0o600); err != nil { // an empty SQLite file
					t.Fatal(err)
				}
			}
			r = wantRun(t, stripeEnv, 1, "doctor", "--config", cfg)
			contains(t, "doctor before migrate", squeeze(r.stdout),
				"database ok", "migrations PROBLEM", "0001_init.sql", "run `hookrelay migrate`",
				"listen ok "+addrs[0]+" is free", "admin_listen ok "+addrs[1]+" is free", "1 problem found")

			wantRun(t, stripeEnv, 0, "migrate", "--config", cfg)
			r = wantRun(t, stripeEnv, 0, "doctor", "--config", cfg)
			contains(t, "doctor after migrate", squeeze(r.stdout), "migrations ok all applied", "runner ok none: no relay runs", "no problems found")

			// A running relay holds both ports: doctor knows them as ours.
			p := startRelay(t, db, stripeSource, stripeEnv)
			postCreated(t, p, "evt_doc_1", time.Now().Add(-3*time.Second))
			r = wantRun(t, stripeEnv, 0, "doctor", "--config", p.configPath)
			contains(t, "doctor beside a relay", squeeze(r.stdout),
				"listen ok "+p.public+" is served by a running hookrelay",
				"admin_listen ok "+p.admin+" is served by a running hookrelay",
				"runs retention and alert evaluation, for ",
				"clock ok stripe: 1 newest events", "fleet ok 1 relay processes run this config")

			// A config that differs from the running relay's (a token more):
			// doctor says the fleet does not run it.
			differing := writeConfig(t, db, addrs[0], addrs[1], stripeSource+"tokens:\n  - {name: extra, role: read, secret: tok_doctor_extra_0123456789}\n")
			r = wantRun(t, stripeEnv, 0, "doctor", "--config", differing)
			contains(t, "doctor with another config", squeeze(r.stdout), "fleet warn the relay processes do not all run this config")

			// An event the provider stamped 200 s after we received it: our
			// clock is behind by more than half the 5 m tolerance.
			postCreated(t, p, "evt_doc_2", time.Now().Add(200*time.Second))
			r = wantRun(t, stripeEnv, 1, "doctor", "--config", p.configPath)
			contains(t, "doctor with a clock behind", squeeze(r.stdout), "clock PROBLEM stripe: this host's clock was", "behind the provider's", "timedatectl")

			// A port held by a program that is not hookrelay.
			other, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			go func() {
				for {
					c, err := other.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			held := writeConfig(t, db, other.Addr().String(), freeAddr(t), stripeSource)
			r = wantRun(t, stripeEnv, 1, "doctor", "--config", held)
			contains(t, "doctor with a port taken", squeeze(r.stdout), "listen PROBLEM "+other.Addr().String()+" is in use by another program")
		})
	}
}

// TestDoctorMissingSQLiteDirectory says what to create.
func TestDoctorMissingSQLiteDirectory(t *testing.T) {
	t.Parallel()
	addrs := freeAddrs(t, 2)
	db := "sqlite:" + filepath.Join(t.TempDir(), "nosuch", "hookrelay.db")
	cfg := writeConfig(t, db, addrs[0], addrs[1], stripeSource)
	r := wantRun(t, stripeEnv, 1, "doctor", "--config", cfg)
	contains(t, "doctor", squeeze(r.stdout), "database PROBLEM", "does not exist: create it")
}

// postCreated posts a Stripe event whose provider time is created, signed
// now, and fails unless it is stored.
func postCreated(t *testing.T, p *relayProc, id string, created time.Time) {
	t.Helper()
	postSigned(t, p, fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","created":%d}`, id, created.Unix()))
}
