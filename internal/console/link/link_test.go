package link

import "testing"

func TestLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"event", Event("https://relay.example.com:8081", "01HX", "billing"), "https://relay.example.com:8081/events/01HX#delivery-billing"},
		{"event, base with a slash", Event("https://relay.example.com:8081/", "01HX", ""), "https://relay.example.com:8081/events/01HX"},
		{"event below a path", Event("https://ops.example.com/hookrelay/", "01HX", "dev-alice"), "https://ops.example.com/hookrelay/events/01HX#delivery-dev-alice"},
		{"event id escaped", Event("http://127.0.0.1:8081", "a/b c", ""), "http://127.0.0.1:8081/events/a%2Fb%20c"},
		{"rejections", Rejections("https://relay.example.com:8081", "stripe"), "https://relay.example.com:8081/rejections?source=stripe"},
		{"rejections below a path", Rejections("https://ops.example.com/hookrelay", "a&b"), "https://ops.example.com/hookrelay/rejections?source=a%26b"},
		{"no base", Event("", "01HX", "billing") + Rejections("", "stripe"), ""},
		{"not a URL", Event("relay:8081", "01HX", "") + Rejections("%zz", "stripe"), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
