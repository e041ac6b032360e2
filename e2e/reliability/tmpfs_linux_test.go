//go:build linux

package reliability

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of the given size ("8m") at a new directory
// and returns it; it is unmounted when the test ends, after everything the
// test started later has stopped. The test is skipped when mounting is not
// permitted (it needs root, as in CI).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			t.Skipf("disk-full scenario skipped: mounting a tmpfs is not permitted here (%v); run the tests as root, as CI does", err)
		}
		t.Fatalf("mount tmpfs at %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			// Something still holds a file open: detach it now, the
			// kernel frees it when the last holder lets go.
			if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount tmpfs at %s: %v", dir, err)
			}
		}
	})
	return dir
}

// fillDisk writes zeros to path until the file system is full and returns
// how many bytes it wrote.
func fillDisk(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("create filler: %w", err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("fill disk: %w", err)
		}
	}
	// Take the last pages too, a few bytes at a time.
	for _, size := range []int{4096, 512, 1} {
		for {
			w, err := f.Write(chunk[:size])
			n += int64(w)
			if err != nil {
				break
			}
		}
	}
	return n, nil
}
