package plugins

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// An agent reading a plugin skill's file is told what a failed call means,
// not gRPC's status text.
func TestPlainError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{status.Error(codes.DeadlineExceeded, "context deadline exceeded"), "did not answer in time"},
		{status.Error(codes.Unavailable, "error reading from server: EOF"), "is not running"},
		{status.Error(codes.Unimplemented, "unknown method ReadFile"), "cannot read files"},
		{status.Error(codes.NotFound, "no such file in bundle"), "could not read it: no such file in bundle"},
	} {
		got := plainError(tt.err).Error()
		if !strings.Contains(got, tt.want) || strings.Contains(got, "rpc error") || strings.Contains(got, "code =") {
			t.Errorf("%v: %q, want one with %q", tt.err, got, tt.want)
		}
	}
	if other := errors.New("plain"); plainError(other) != other {
		t.Error("an error that is not gRPC's was changed")
	}
}
