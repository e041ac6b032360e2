package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// name checks a source, destination or token name.
func (v *validator) name(key, name string) {
	if name == "" {
		v.add(key, "required")
		return
	}
	if len(name) > 64 {
		v.add(key, "%q is longer than 64 characters", name)
		return
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			v.add(key, "%q may hold only a-z, 0-9, _ and -", name)
			return
		}
	}
}

// unique reports names seen before under the same kind of key.
func (v *validator) unique(key, name string, seen map[string]string) {
	if name == "" {
		return
	}
	if first, ok := seen[name]; ok {
		v.add(key, "%q is already used by %s", name, first)
		return
	}
	seen[name] = strings.TrimSuffix(key, ".name")
}

func (v *validator) sources() {
	seen := map[string]string{}
	for i := range v.c.Sources {
		s := &v.c.Sources[i]
		p := fmt.Sprintf("sources[%d]", i)
		v.name(p+".name", s.Name)
		v.unique(p+".name", s.Name, seen)
		switch schemes := signature.Names(); {
		case s.Verify == "":
			v.add(p+".verify", "required (want one of %s)", strings.Join(schemes, ", "))
		case !slices.Contains(schemes, s.Verify):
			v.add(p+".verify", "unknown scheme %q%s (want one of %s)", s.Verify, DidYouMean(s.Verify, schemes), strings.Join(schemes, ", "))
		}
		v.durationPositive(p+".tolerance", s.Tolerance)
		if s.MaxBody <= 0 || s.MaxBody > MaxMaxBody {
			v.add(p+".max_body", "%s is out of range (want more than 0 and at most %s)", s.MaxBody, MaxMaxBody)
		}
		if s.AllowSHA1 && s.Verify != "github" {
			v.add(p+".allow_sha1", "only applies to verify: github")
		}
		v.hmac(p+".hmac", s)
		v.providerKeys(p, s)
		v.dottedPath(p+".id_field", s.IDField)
		v.dottedPath(p+".type_field", s.TypeField)
	}
}

func (v *validator) hmac(p string, s *Source) {
	h := s.HMAC
	if s.Verify != "hmac" {
		if h != (HMAC{}) {
			v.add(p, "only applies to verify: hmac")
		}
		return
	}
	if h.Header == "" {
		v.add(p+".header", "required for verify: hmac (the header that carries the signature)")
	}
	switch h.Algorithm {
	case "sha1", "sha256", "sha512":
	default:
		v.add(p+".algorithm", "unknown algorithm %q (want one of sha1, sha256, sha512)", h.Algorithm)
	}
	switch h.Encoding {
	case "hex", "base64":
	default:
		v.add(p+".encoding", "unknown encoding %q (want hex or base64)", h.Encoding)
	}
}

func (v *validator) destinations() {
	seen := map[string]string{}
	for i := range v.c.Destinations {
		d := &v.c.Destinations[i]
		p := fmt.Sprintf("destinations[%d]", i)
		v.name(p+".name", d.Name)
		v.unique(p+".name", d.Name, seen)
		switch {
		case d.Handler && (d.Pull || d.URL != ""):
			v.add(p+".url", "a handler destination has neither url nor pull")
		case d.Handler:
		case d.Pull && d.URL != "":
			v.add(p+".url", "set either url or pull: true, not both")
		case !d.Pull && d.URL == "":
			v.add(p+".url", "required (or pull: true for a pull destination)")
		case d.URL != "":
			v.httpURL(p+".url", d.URL)
		}
		if !d.Handler || d.Secret != "" {
			v.signingSecret(p+".secret", d.Secret)
		}
		if len(d.Sources) == 0 {
			v.add(p+".sources", "empty (list the sources this destination receives)")
		}
		listed := map[string]bool{}
		for j, src := range d.Sources {
			switch {
			case !v.sourceNames[src]:
				v.add(fmt.Sprintf("%s.sources[%d]", p, j), "no source named %q", src)
			case listed[src]:
				v.add(fmt.Sprintf("%s.sources[%d]", p, j), "%q is listed twice", src)
			}
			listed[src] = true
		}
		for j, t := range d.Types {
			if !validGlob(t) {
				v.add(fmt.Sprintf("%s.types[%d]", p, j), "invalid glob %q", t)
			}
		}
		v.durationPositive(p+".timeout", d.Timeout)
		if d.MaxAttempts < 1 {
			v.add(p+".max_attempts", "%d is less than 1 (the first try counts)", d.MaxAttempts)
		}
		if len(d.Backoff) == 0 && d.MaxAttempts > 1 {
			v.add(p+".backoff", "empty (list at least one wait, e.g. [10s, 1m])")
		}
		for j, b := range d.Backoff {
			v.durationPositive(fmt.Sprintf("%s.backoff[%d]", p, j), b)
		}
		if d.Concurrency < 1 {
			v.add(p+".concurrency", "%d is less than 1", d.Concurrency)
		}
		if !d.Rate.IsZero() && (d.Rate.Events <= 0 || d.Rate.Per <= 0) {
			v.add(p+".rate", "must be more than 0 events per a positive duration")
		}
		v.dottedPath(p+".ordering_key", d.OrderingKey)
	}
}

// signingSecret checks a destination secret: "whsec_" then base64.
func (v *validator) signingSecret(key, secret string) {
	if secret == "" {
		if o, ok := v.c.origins[key]; ok && o.hint() != "" {
			v.add(key, "empty%s", o.hint())
		} else {
			v.add(key, "required (a whsec_… secret that signs what the destination receives)")
		}
		return
	}
	v.whsec(key, secret)
}

// whsec checks a non-empty Standard Webhooks signing secret: "whsec_" then
// padded base64.
func (v *validator) whsec(key, secret string) {
	if !strings.HasPrefix(secret, "whsec_") {
		v.add(key, "want whsec_ followed by base64")
		return
	}
	if _, err := signature.StandardKey(secret); err != nil {
		v.add(key, "want whsec_ followed by padded base64")
	}
}

func (v *validator) tokens() {
	seenName := map[string]string{}
	seenSecret := map[string]string{}
	for i := range v.c.Tokens {
		t := &v.c.Tokens[i]
		p := fmt.Sprintf("tokens[%d]", i)
		v.name(p+".name", t.Name)
		v.unique(p+".name", t.Name, seenName)
		if t.Secret != "" {
			if first, ok := seenSecret[t.Secret]; ok {
				v.add(p+".secret", "same secret as %s", first)
			} else {
				seenSecret[t.Secret] = p
			}
		}
		switch t.Role {
		case RoleConsumer:
			if len(t.Destinations) == 0 {
				v.add(p+".destinations", "empty (a consumer token lists the pull destinations it may claim)")
			}
			for j, name := range t.Destinations {
				key := fmt.Sprintf("%s.destinations[%d]", p, j)
				d, ok := v.destNames[name]
				switch {
				case !ok:
					v.add(key, "no destination named %q", name)
				case !d.Pull:
					v.add(key, "%q is not a pull destination", name)
				}
			}
		case RoleRead, RoleAdmin:
			if len(t.Destinations) > 0 {
				v.add(p+".destinations", "only consumer tokens list destinations")
			}
		case "":
			v.add(p+".role", "required (want read, admin or consumer)")
		default:
			v.add(p+".role", "unknown role %q (want read, admin or consumer)", t.Role)
		}
	}
}
