package config

import "net"

// DialAddr turns a listen address (listen, admin_listen, or a bound
// listener's) into one a client on this machine can dial: an empty or
// unspecified host becomes 127.0.0.1. An address that is not host:port is
// returned as it is.
func DialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
