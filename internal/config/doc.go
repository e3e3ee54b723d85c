// Package config is cb-ls's configuration: what the user and a project
// ask for, and where the user's own files live.
//
//   - Settings and ParseSettings: the one parser every source goes
//     through (config files, the editor's initializationOptions,
//     workspace/configuration, didChangeConfiguration).
//   - Merge: how one source's settings override another's, field by field.
//   - Load: every source merged in order of precedence, the project's
//     settings split into those that apply at once and those that need
//     the user's trust (project.go), defaults resolved.
//   - TrustStore: the user's trust decisions, keyed by a project's real
//     path and the hash of its .catbuddy files.
//   - UserDir and StateDir: the user's configuration and state
//     directories; AddExecAllowRule writes an "Always allow" answer there.
//   - Commands: the built-in commands and the user's custom ones.
//
// It imports only guard (for the access mode), so every layer above,
// the tools included, may read its settings from here.
package config
