package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestSDKError(t *testing.T) {
	coded := &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "x"}
	tests := []struct {
		method string
		err    error
		code   int64
	}{
		{"tools/list", errors.New(`method "tools/list" is invalid during session initialization`), jsonrpc.CodeInvalidRequest},
		{"initialize", errors.New(`missing required "params"`), jsonrpc.CodeInvalidParams},
		{"initialize", context.Canceled, jsonrpc.CodeInternalError},
		{"ping", fmt.Errorf("stopped: %w", context.Canceled), jsonrpc.CodeInternalError},
		{"nope", fmt.Errorf("wrapped: %w", coded), jsonrpc.CodeMethodNotFound},
		{"prompts/get", fmt.Errorf(`%w: missing required "params"`, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}), jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		var got *jsonrpc.Error
		if !errors.As(sdkError(tt.method, tt.err), &got) || got.Code != tt.code {
			t.Errorf("sdkError(%q, %v) = %v, want code %d", tt.method, tt.err, got, tt.code)
		}
	}
}
