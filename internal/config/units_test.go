package config

import (
	"math"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: "10s", want: 10 * time.Second},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "500ms", want: 500 * time.Millisecond},
		{in: "30d", want: 30 * 24 * time.Hour},
		{in: "1d12h", want: 36 * time.Hour},
		{in: "12h1d", want: 36 * time.Hour},
		{in: "1.5d", want: 36 * time.Hour},
		{in: "2d3h4m5s", want: 51*time.Hour + 4*time.Minute + 5*time.Second},
		{in: " 5m ", want: 5 * time.Minute},
		{in: "-1d", want: -24 * time.Hour},
		{in: "0", want: 0},
		{in: "", wantErr: true},
		{in: "30", wantErr: true},
		{in: "d", wantErr: true},
		{in: "30days", wantErr: true},
		{in: "1dd", wantErr: true},
		{in: "1d-5h", wantErr: true},
		{in: "..d", wantErr: true},
		{in: "999999999d", wantErr: true},
		{in: "106751d23h47m16.854775807s", want: math.MaxInt64},
		{in: "106751d23h47m16.854775808s", wantErr: true},
		{in: "106752d", wantErr: true},
		{in: "soon", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseDuration(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got.Std() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got.Std(), err, tt.want)
		}
	}
}

func TestDurationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{10 * time.Second, "10s"},
		{time.Minute, "1m"},
		{5 * time.Minute, "5m"},
		{2 * time.Hour, "2h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 5*time.Second, "1h0m5s"},
		{30 * 24 * time.Hour, "30d"},
		{36 * time.Hour, "1d12h"},
		{-36 * time.Hour, "-1d12h"},
		{1500 * time.Millisecond, "1.5s"},
		{math.MaxInt64, "106751d23h47m16.854775807s"},
	}
	for _, tt := range tests {
		got := Duration(tt.in).String()
		if got != tt.want {
			t.Errorf("Duration(%v).String() = %q, want %q", tt.in, got, tt.want)
		}
		back, err := ParseDuration(got)
		if err != nil || back.Std() != tt.in {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", got, back.Std(), err, tt.in)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    ByteSize
		wantErr bool
	}{
		{in: "2048", want: 2048},
		{in: "1MiB", want: 1 << 20},
		{in: "512KiB", want: 512 << 10},
		{in: "10MB", want: 10_000_000},
		{in: "1kb", want: 1000},
		{in: "1GiB", want: 1 << 30},
		{in: "1 MiB", want: 1 << 20},
		{in: "1.5KiB", want: 1536},
		{in: "7B", want: 7},
		{in: "0", want: 0},
		{in: "", wantErr: true},
		{in: "MiB", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "1XB", wantErr: true},
		{in: "1 MiB extra", wantErr: true},
		{in: "9999999999999GiB", wantErr: true},
		{in: "1e3", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseByteSize(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseByteSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestByteSizeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   ByteSize
		want string
	}{
		{0, "0"},
		{1000, "1000"},
		{2048, "2KiB"},
		{MiB, "1MiB"},
		{64 * MiB, "64MiB"},
		{GiB, "1GiB"},
		{MiB + 1, "1048577"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
		if back, err := ParseByteSize(tt.in.String()); err != nil || back != tt.in {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tt.in.String(), back, err, tt.in)
		}
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Rate
		limit   rate.Limit
		wantErr bool
	}{
		{in: "100/s", want: Rate{100, time.Second}, limit: 100},
		{in: "20/m", want: Rate{20, time.Minute}, limit: rate.Limit(20.0 / 60)},
		{in: "1/h", want: Rate{1, time.Hour}, limit: rate.Limit(1.0 / 3600)},
		{in: "5/10s", want: Rate{5, 10 * time.Second}, limit: 0.5},
		{in: "1/1d", want: Rate{1, 24 * time.Hour}, limit: rate.Limit(1.0 / 86400)},
		{in: "", want: Rate{}, limit: rate.Inf},
		{in: "0/s", wantErr: true},
		{in: "-1/s", wantErr: true},
		{in: "100", wantErr: true},
		{in: "100/", wantErr: true},
		{in: "100/0s", wantErr: true},
		{in: "x/s", wantErr: true},
		{in: "100/fortnight", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseRate(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		if l := got.Limit(); l != tt.limit {
			t.Errorf("ParseRate(%q).Limit() = %v, want %v", tt.in, l, tt.limit)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", got.String(), back, err, got)
		}
	}
}
