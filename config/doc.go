// Package config loads skillmux's configuration: koanf layers merged into
// one typed, validated, immutable Config that knows where each value came
// from. It is the only package that imports koanf.
//
// Layers, lowest first:
//
//  1. built-in defaults;
//  2. the user file, $XDG_CONFIG_HOME/skillmux/config.yaml (else
//     ~/.config/skillmux/config.yaml);
//  3. the workspace file .skillmux.yaml, the nearest one from the working
//     folder up to the repository root, or the file given with --config;
//  4. environment variables SKILLMUX_<SECTION>__<KEY> (SKILLMUX_LOG__LEVEL);
//  5. command-line flags.
//
// A higher layer replaces a lower one key by key; a list (sources)
// replaces the list below it whole. Each file is checked alone before it
// is merged, against a schema walked over the YAML node tree, so that an
// unknown key, a wrong type or a bad value is reported with its file, its
// line and a suggestion. Relative paths in a file are relative to that
// file's folder.
//
// A configuration file holds one YAML document of at most MaxFileSize
// bytes (1 MiB). Every problem of every layer is reported in one error,
// one problem a line; a value quoted in a message is cut to a short
// preview on one line.
package config
