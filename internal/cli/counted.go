package cli

import "fmt"

// counted writes n with the noun in the number n takes: "1 delivery",
// "2 deliveries", "0 deliveries".
func counted[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Nouns counted in what the commands print.
const (
	deliveryNoun   = "delivery"
	deliveriesNoun = "deliveries"
	eventNoun      = "event"
	eventsNoun     = "events"
)

// verbAgreeing is the form of a verb that agrees with n things: one
// "matches", two "match".
func verbAgreeing[N ~int | ~int64](n N, singular, plural string) string {
	if n == 1 {
		return singular
	}
	return plural
}
