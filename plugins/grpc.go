package plugins

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// The failures of a call that say the plugin cannot serve now, whatever
// is asked: another call at once would fail as this one did.
var (
	errNoAnswer   = errors.New("the source plugin did not answer in time")
	errNotRunning = errors.New("the source plugin is not running (it stopped or crashed; skillmux restarts it)")
)

// tooLargeMessage reports whether err is gRPC's refusal of a message over
// the size the call takes, rather than a plugin's own error of that code.
func tooLargeMessage(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "larger than max")
}

// plainError says in words what a failed call to the plugin means, for
// an agent reading a skill's file, rather than gRPC's status text
// ("rpc error: code = DeadlineExceeded desc = ..."). Other errors are
// returned as they are.
func plainError(err error) error {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return err
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		return errNoAnswer
	case codes.Unavailable, codes.Canceled:
		return errNotRunning
	case codes.Unimplemented:
		return errors.New("the source plugin cannot read files (it does not serve ReadFile)")
	case codes.ResourceExhausted:
		if !tooLargeMessage(err) {
			break
		}
		return fmt.Errorf("the source plugin sent a chunk of the file over the %d MiB one may hold: send it in smaller chunks (plugins.Serve sends 256 KiB)", maxChunk>>20)
	}
	if msg := st.Message(); msg != "" {
		return fmt.Errorf("the source plugin could not read it: %s", clean(msg, false))
	}
	return fmt.Errorf("the source plugin could not read it (%s)", st.Code())
}
