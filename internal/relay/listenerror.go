package relay

import (
	"errors"
	"fmt"
	"syscall"
)

// listenError says which config key names the address a listener could
// not bind, and what to change.
func listenError(key, addr string, err error) error {
	flag := "--" + map[string]string{"listen": "listen", "admin_listen": "admin-listen"}[key]
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s %s: the address is already in use (another hookrelay?): stop what holds it, or change %s in the config or pass %s: %w", key, addr, key, flag, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%s %s: not allowed to bind it (ports below 1024 need privileges): change %s or pass %s: %w", key, addr, key, flag, err)
	}
	return fmt.Errorf("%s %s: cannot listen: change %s or pass %s: %w", key, addr, key, flag, err)
}
