package delivery

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
)

// AlertBody is an alert as it is posted to alerts.url. In the json format
// the body is its JSON encoding, which carries "kind", "summary" and, with
// alerts.console_url, "url"; in the slack format it is only AlertSummary
// and AlertLink, as Slack's incoming webhooks want them.
type AlertBody interface {
	// AlertSummary says in one line what happened, where and how many.
	AlertSummary() string
	// AlertLink is the console page that shows it, or "".
	AlertLink() string
}

// slackMessage is the body of a Slack incoming webhook, which Mattermost
// and Discord's Slack-compatible endpoints also accept.
type slackMessage struct {
	Text string `json:"text"`
}

// slackEscape escapes the three characters Slack's mrkdwn reads as markup.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// slackURL percent-encodes what would end a link's <url|text> markup
// early; the links built from the console's URL already are.
var slackURL = strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C")

// slackLinkText is the text of the console link in a Slack message.
const slackLinkText = "Open in the console"

// encode returns the bytes posted for body in the alerter's format.
func (a *alerter) encode(body AlertBody) ([]byte, error) {
	if a.format != config.AlertFormatSlack {
		return json.Marshal(body)
	}
	text := slackEscape.Replace(body.AlertSummary())
	if l := body.AlertLink(); l != "" {
		text += " <" + slackURL.Replace(l) + "|" + slackLinkText + ">"
	}
	// The summary's "&", "<" and ">" are already entities; the markup's
	// own angle brackets stay as they are rather than \u003c.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(slackMessage{Text: text}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// newAlertID returns a webhook-id for one alert: unique, and the same for
// every try of that alert, as a receiver that deduplicates wants it.
func newAlertID() string { return "alert_" + rand.Text() }
