// Package app is the one run assembly every front end goes through:
// `cb-ls serve` (internal/lsp), `cb-ls run` and `cb-ls tools` (cmd/cb-ls),
// and any later one (an ACP agent). A front end parses its input and
// renders its output; app builds everything in between, so the front ends
// cannot drift apart.
//
// # What a front end supplies
//
//   - a Workspace (Options.Workspace): how documents are read and written.
//     Nil is the disk; the editor supplies its buffers and reviewed
//     workspace/applyEdit.
//   - an Approver (Options.Approver): how exec's questions reach the user
//     (a terminal prompt, window/showMessageRequest, an ACP permission
//     request). Nil refuses every command that would need approval.
//   - its settings source: the user's settings above the config files
//     (flags, the editor's settings), merged by config.Load into the
//     config.Config each Turn runs with, and passed to StartMCP.
//   - an event sink (Turn.Emit): every agent.Event of a turn as it
//     happens, for progress, streaming text, diffs.
//   - optionally a trust decision (Options.ProjectTrusted; default: the
//     user's trust store) and its own guard when its folders change while
//     it runs (Options.Guard; otherwise Options.Roots and Mode build one).
//
// # What app builds
//
// New builds the guard, the tool registry, the tools' context
// (tools.ToolContext) and registers the built-in tools. StartMCP starts
// the user's MCP servers and those of trusted projects, whose tools join
// the registry as mcp_<server>_<tool>; WaitMCP waits for them to start
// (a front end whose first turn starts at once); Close stops them. A Run
// is one conversation: NewRun starts one (stored in the folder's place
// in the user's state directory, package session), ResumeRun continues a stored one, and Do runs one
// turn of it: the agent over the registry, every event rendered into the
// run's transcript and passed on, the conversation stored and the
// transcript written beside it.
//
// # Language servers
//
// Without an editor's bridge (Options.Language nil), the languageServers
// setting's servers answer the language tools (language.go) and check
// the edits of runs (lspclient's Checks): an edit's result names what it
// broke in the run's view. With an editor, whose servers see the user's
// buffers only, Options.RunViewServers check the runs whose changes are
// pending, started when a run first checks a file of their language
// (runview_checks.go), and answer the language tools for a run with
// pending changes in files of their language, on the run's text
// (runview_language.go).
//
// # A front end in a few lines
//
//	a, err := app.New(app.Options{Roots: roots, Workspace: ws, Approver: approver})
//	if err != nil { … }
//	defer a.Close()
//	a.StartMCP(userSettings)
//	a.WaitMCP(ctx, 30*time.Second)
//
//	loaded, err := config.Load(config.LoadOptions{Root: roots[0], Over: []config.Config{userSettings}})
//	cmd, _ := config.FindCommand(loaded.Config, config.CommandAsk)
//	run := app.NewRun(a.Guard.Roots()[0], cmd, session.Header{Input: prompt})
//	run.Begin()
//	res := a.Do(ctx, run, app.Turn{Config: loaded.Config, Input: prompt,
//		Task: agent.Task{Command: cmd.ID, Input: prompt}, Emit: render})
//	// res.Answer, res.Status, res.TranscriptPath; a reply is
//	// run.Begin() then a.Do(ctx, run, app.Turn{Config: cfg, Input: reply}).
//
// A front end that keeps a run's FileStates across turns (the editor)
// puts them in the context it passes to Do (filestate.NewContext). Turns
// of one Run go one at a time; different Runs may go concurrently.
package app
