package plugins

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// isGone reports whether err means the plugin went away or the call was
// cancelled, which need no log line of their own.
func isGone(err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	switch status.Code(err) {
	case codes.Canceled, codes.Unavailable, codes.Unimplemented:
		return true
	}
	return false
}

// isDeadline reports whether err is gRPC's answer to a call whose
// deadline passed.
func isDeadline(err error) bool {
	return status.Code(err) == codes.DeadlineExceeded
}
