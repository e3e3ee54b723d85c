// End-to-end test of the extension in a real VS Code (code-server 1.100 in
// headless Chromium, driven through playwright-core), against the real cb-ls
// binary and the scripted model server (internal/agent/agenttest/cmd/scriptmodel).
// The extension is installed from its .vsix, exactly as a user installs it,
// and driven through the UI: the command palette, the Refactor Preview's
// checkbox and its Apply / Discard buttons.
//
// Environment (scripts/test-vscode.sh sets all of it):
//   E2E_DIR      the install from scripts/setup-vscode-e2e.sh
//   CBLS         the cb-ls binary          SCRIPTMODEL  the scriptmodel binary
//   VSIX         the packaged extension    ART          artifacts directory (screenshots, logs)
//   DOCS_SHOT    optional: also copy the Refactor Preview screenshot here
//   E2E_ONLY     optional: only these test files (scenario,chat,…)
//   GOPLS        optional: gopls, whose directory run.js puts on cb-ls's PATH
//                (code-server gives extensions its login shell's PATH, not
//                this one's): pending_diagnostics.js skips without it
//   E2E_CENTER   optional: 1 finds every notification in the notification
//                center, as where VS Code toasted none (scenario.js)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const { spawn, execFileSync } = require('node:child_process');
const { scenario } = require('./scenario');

const env = (k) => {
  const v = process.env[k];
  if (!v) {
    throw new Error(`e2e: ${k} is not set (run scripts/test-vscode.sh)`);
  }
  return path.resolve(v);
};
const E2E = env('E2E_DIR');
const CBLS = env('CBLS');
const SCRIPTMODEL = env('SCRIPTMODEL');
const VSIX = env('VSIX');
const ART = env('ART');
const { chromium } = require(path.join(E2E, 'tools/node_modules/playwright-core'));

const t0 = Date.now();
const log = (...a) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
const children = [];

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// spawnGroup starts a process in its own process group so that killing the
// group also ends what it started (code-server → extension host → cb-ls).
function spawnGroup(cmd, args, opts) {
  const p = spawn(cmd, args, { ...opts, detached: true });
  children.push(p);
  return p;
}

function killAll() {
  for (const p of children) {
    try {
      process.kill(-p.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

// workbenchState says in one line what the window shows: the tabs (the
// active one marked *, an unsaved one +), the CodeLens titles, the status
// bar's cb-ls items, the notifications (toasts, and the notification
// center's when it is open) and the side bar's view headers.
async function workbenchState(page) {
  const texts = async (sel) => (await page.locator(sel).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const tabs = await page.locator('.tabs-container .tab').evaluateAll((els) =>
    els.map((el) => (el.classList.contains('active') ? '*' : '') + (el.classList.contains('dirty') ? '+' : '') + (el.getAttribute('aria-label') || el.textContent || '').trim()));
  const parts = [
    `tabs [${tabs.join(' | ')}]`,
    `codelens [${(await texts('.codelens-decoration')).join(' | ')}]`,
    `status [${(await texts('.statusbar-item')).filter((t) => /cb-ls|pending/.test(t)).join(' | ')}]`,
    `notifications [${(await texts('.notifications-toasts .notification-toast .notification-list-item-message')).join(' | ')}]`,
    `center [${(await texts('.notifications-center .notification-list-item-message')).join(' | ')}]`,
    `panes [${(await texts('.sidebar .pane-header h3')).join(' | ')}]`,
    `focus ${await page.evaluate(() => { const a = document.activeElement; return a ? `${a.tagName}.${String(a.className).split(' ').slice(0, 3).join('.')}` : 'none'; })}`,
  ];
  return parts.join('; ');
}

// recentLogs returns the extension's and the server's log lines written
// since the moment since (ms), the last few of each, for a failure seen
// only in a CI log.
function recentLogs(run, since) {
  const out = [];
  const tail = (file, stamp) => {
    let lines;
    try {
      lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
    return lines.filter((l) => {
      const t = stamp(l);
      return t === undefined || t >= since - 1000;
    }).slice(-15);
  };
  const logs = path.join(run, 'ud', 'logs');
  for (const dir of fs.existsSync(logs) ? fs.readdirSync(logs).sort() : []) {
    for (const host of fs.readdirSync(path.join(logs, dir)).filter((d) => d.startsWith('exthost'))) {
      const f = path.join(logs, dir, host, 'catbuddy.cb-ls', 'cb-ls.log');
      if (fs.existsSync(f)) {
        // 2026-12-05 20:16:28.442 [info] …: the extension host's local time.
        const lines = tail(f, (l) => { const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(l); return m ? new Date(`${m[1]}T${m[2]}`).getTime() : undefined; });
        if (lines.length > 0) {
          out.push(`  the extension's log (${path.relative(run, f)}):`, ...lines.map((l) => '    ' + l));
        }
      }
    }
  }
  // time=2026-12-05T20:17:26.969Z level=INFO …
  const server = tail(path.join(run, 'cb-ls.log'), (l) => { const m = /^time=(\S+)/.exec(l); return m ? Date.parse(m[1]) : undefined; });
  if (server.length > 0) {
    out.push('  the server\'s log (cb-ls.log):', ...server.map((l) => '    ' + l));
  }
  return out.join('\n');
}

async function waitFor(what, ms, pred) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await pred();
      if (v) {
        return v;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms / 1000}s waiting for ${what}${last ? ': ' + last.message : ''}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function startScriptModel(dir, script) {
  const scriptPath = path.join(dir, 'script.json');
  const record = path.join(dir, 'requests.jsonl');
  fs.writeFileSync(scriptPath, JSON.stringify(script, null, 2));
  const p = spawnGroup(SCRIPTMODEL, ['--script', scriptPath, '--record', record], { stdio: ['ignore', 'pipe', 'pipe'] });
  p.stderr.pipe(fs.createWriteStream(path.join(dir, 'scriptmodel.log')));
  return new Promise((resolve, reject) => {
    let buf = '';
    p.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        resolve({ url: buf.slice(0, nl).trim(), record });
      }
    });
    p.once('exit', (code) => reject(new Error(`scriptmodel exited with ${code}; see ${dir}/scriptmodel.log`)));
  });
}

async function main() {
  const run = path.join(ART, 'run');
  fs.rmSync(run, { recursive: true, force: true });
  for (const f of fs.existsSync(ART) ? fs.readdirSync(ART) : []) {
    if (f.startsWith('fail-')) {
      fs.rmSync(path.join(ART, f));
    }
  }
  const ws = path.join(run, 'ws');
  const ud = path.join(run, 'ud');
  const exts = path.join(run, 'exts');
  for (const d of [ws, path.join(ws, '.vscode'), path.join(ud, 'User'), exts, path.join(run, 'tmp')]) {
    fs.mkdirSync(d, { recursive: true });
  }
  for (const [name, text] of Object.entries(scenario.files)) {
    fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    fs.writeFileSync(path.join(ws, name), text);
  }
  const model = await startScriptModel(run, scenario.script);
  log('scripted model at', model.url);

  // cb-ls's stderr (its log) goes to a file as well as to the extension's output channel.
  const wrapper = path.join(run, 'cb-ls.sh');
  // GOPLS's directory goes first on cb-ls's PATH, where it looks for the servers that check a run's view.
  const goplsPath = process.env.GOPLS ? `export PATH='${path.dirname(path.resolve(process.env.GOPLS))}':"$PATH"\n` : '';
  fs.writeFileSync(wrapper, `#!/bin/bash\n${goplsPath}exec '${CBLS}' "$@" 2> >(tee -a '${path.join(run, 'cb-ls.log')}' >&2)\n`, { mode: 0o755 });
  // Where the key goes and what runs are user settings ("scope": "machine";
  // a workspace's are ignored: settings_scope.js); the model name may come
  // from the workspace. code-server's window is a remote one, like SSH's:
  // VS Code reads machine settings from the remote side's user settings
  // (its "Remote" tab, ud/Machine/settings.json), not from the browser-side
  // ud/User/settings.json (a serverPath changed there did not take effect).
  fs.writeFileSync(path.join(ws, '.vscode/settings.json'), JSON.stringify({ 'catbuddy.model': 'scripted' }, null, 2));
  const userSettings = path.join(ud, 'Machine/settings.json');
  fs.mkdirSync(path.dirname(userSettings), { recursive: true });
  fs.writeFileSync(
    userSettings,
    // The scenario's tests drive the reviewed flow (the Refactor Preview for
    // each edit); pending changes are covered by their own tests.
    JSON.stringify({ 'catbuddy.serverPath': wrapper, 'catbuddy.provider': 'openai', 'catbuddy.baseUrl': model.url, 'catbuddy.review': 'before' }, null, 2),
  );
  fs.writeFileSync(
    path.join(ud, 'User/settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', 'security.workspace.trust.enabled': false,
      'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false, 'update.mode': 'none', 'workbench.tips.enabled': false,
      'workbench.enableExperiments': false, 'chat.disableAIFeatures': true, 'files.autoSave': 'off', 'git.enabled': false,
      // While TypeScript loads a project, its syntax server answers from the open files alone (a definition
      // across files lands on the import): language_features.js needs the answers of the loaded project.
      'typescript.tsserver.useSyntaxServer': 'never',
    }),
  );
  const csEnv = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(E2E, 'xdg/config'), XDG_DATA_HOME: path.join(E2E, 'xdg/data'),
    XDG_CACHE_HOME: path.join(E2E, 'xdg/cache'), TMPDIR: path.join(run, 'tmp'), XDG_STATE_HOME: path.join(run, 'state'),
  };
  // The key must come from the extension's secret storage, not from the environment.
  delete csEnv.OPENAI_API_KEY;
  delete csEnv.ANTHROPIC_API_KEY;
  const cs = path.join(E2E, 'cs/node_modules/.bin/code-server');
  execFileSync(cs, ['--user-data-dir', ud, '--extensions-dir', exts, '--install-extension', VSIX], { env: csEnv, stdio: 'pipe' });
  log('installed', path.basename(VSIX));

  const port = await freePort();
  const server = spawnGroup(
    cs,
    ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
     '--disable-getting-started-override', '--user-data-dir', ud, '--extensions-dir', exts, ws],
    { env: csEnv, stdio: ['ignore', fs.openSync(path.join(run, 'code-server.log'), 'w'), fs.openSync(path.join(run, 'code-server.log'), 'a')] },
  );
  await waitFor('code-server /healthz', 60000, async () => {
    if (server.exitCode !== null) {
      throw new Error(`code-server exited (${server.exitCode}); see ${run}/code-server.log`);
    }
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  });
  log('code-server on port', port);

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const results = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => m.type() === 'error' && fs.appendFileSync(path.join(run, 'browser-console.log'), m.text() + '\n'));
    // Under load the first page takes long to load, as the workbench does to show (below).
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { timeout: 120000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
    log('workbench visible');
    const ctx = { page, ws, run, userSettings, model, startScriptModel, log, waitFor, art: ART, docsShot: process.env.DOCS_SHOT };
    for (const t of scenario.tests) {
      if (t.skip) {
        // A test whose outside program is missing (CB_LS_REQUIRE_TOOLS=1 makes it a failure instead).
        results.push({ name: t.name, ok: true, skipped: t.skip });
        log(`SKIP ${t.name}: ${t.skip}`);
        continue;
      }
      const started = Date.now();
      try {
        await t.fn(ctx);
        results.push({ name: t.name, ok: true });
        log(`PASS ${t.name} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
      } catch (e) {
        // What the window showed, for a failure seen only in a CI log.
        const shown = await workbenchState(page).catch((x) => `(the window's state could not be read: ${x.message})`);
        results.push({ name: t.name, ok: false, err: e, shown });
        log(`FAIL ${t.name}: ${e && e.stack ? e.stack : e}\n  the window: ${shown}\n${recentLogs(run, started)}`);
        await page.screenshot({ path: path.join(ART, `fail-${t.name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
      }
    }
  } finally {
    await browser.close().catch(() => {});
    killAll();
  }
  const failed = results.filter((r) => !r.ok);
  const skipped = results.filter((r) => r.skipped);
  for (const r of results) {
    if (r.skipped) {
      console.log(`skip vscode-e2e: ${r.name} — ${r.skipped}`);
      continue;
    }
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} vscode-e2e: ${r.name}${r.ok ? '' : ' — ' + (r.err && r.err.message) + '\n  the window: ' + r.shown}`);
  }
  const skips = skipped.length > 0 ? `, ${skipped.length} skipped` : '';
  console.log(`vscode e2e: ${results.length - failed.length - skipped.length} passed${skips}, ${failed.length} failed (logs and screenshots in ${ART})`);
  return failed.length === 0 ? 0 : 1;
}

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
main().then(
  (code) => process.exit(code),
  (e) => {
    console.error('vscode e2e: setup failed:', e && e.stack ? e.stack : e);
    console.log('vscode e2e: 0 passed, 1 failed (setup)');
    killAll();
    process.exit(1);
  },
);
