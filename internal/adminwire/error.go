package adminwire

// Error is the body of every answer that is not 2xx.
type Error struct {
	Error string `json:"error"`
}
