package config

import (
	"fmt"
	"testing"
)

// TestDefaultsAreValid: Load checks each layer but not the merge, so the
// built-in defaults must pass the checks a variable would.
func TestDefaultsAreValid(t *testing.T) {
	for key, v := range defaults {
		if _, err := scalar(key, fmt.Sprint(v)); err != nil {
			t.Errorf("default %s = %v: %v", key, v, err)
		}
	}
	for key := range scalarKeys {
		if _, ok := defaults[key]; !ok {
			t.Errorf("%s has no default", key)
		}
	}
}
