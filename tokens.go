package hookrelay

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/config"
)

// Token is a bearer token of the admin API and the console that Admin
// serves, as an entry of the YAML's tokens section declares one.
type Token struct {
	// Name is who the token is in logs and the audit log: lower-case
	// letters, digits, '-' and '_', unique among the tokens.
	Name string
	// Role is what the token may do.
	Role Role
	// Secret is the bearer value: "Authorization: Bearer SECRET". It must
	// not be empty, and no two tokens share one.
	Secret string
	// Destinations lists the pull destinations a RoleConsumer token may
	// claim from; it is empty for the other roles.
	Destinations []string
}

// Role is what a Token may do.
type Role string

// Token roles.
const (
	// RoleRead reads events, deliveries, stats and the console.
	RoleRead Role = "read"
	// RoleAdmin does everything, replay, backfill, pause and skip
	// included.
	RoleAdmin Role = "admin"
	// RoleConsumer claims and acknowledges the deliveries of its
	// Destinations, pull destinations.
	RoleConsumer Role = "consumer"
)

// addTokens adds ts to cfg's tokens, which cfg.Validate then checks with
// the others.
func addTokens(cfg *config.Config, ts []Token) error {
	for i, t := range ts {
		if t.Secret == "" {
			return fmt.Errorf("hookrelay: config: Tokens[%d] (%s): empty Secret; a token without one never authenticates", i, t.Name)
		}
		cfg.Tokens = append(cfg.Tokens, config.Token{Name: t.Name, Role: string(t.Role), Secret: t.Secret, Destinations: t.Destinations})
	}
	return nil
}
