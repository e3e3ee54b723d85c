// manydocs.js: open many documents in a stdio language server and report its
// memory against the text it holds. Plain Node, no dependencies (it speaks
// JSON-RPC framing itself), so it runs without npm install.
//
//   node manydocs.js [--docs 1000] [--size 102400] -- CMD ARGS...
//
// Prints one JSON object: text bytes, RSS before and after opening (VmRSS and
// VmHWM from /proc), and their ratios to the text size.
'use strict';

const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

function parseArgs(argv) {
  const opts = { docs: 1000, size: 100 * 1024, cmd: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') { opts.cmd = argv.slice(i + 1); break; }
    if (argv[i] === '--docs') opts.docs = Number(argv[++i]);
    else if (argv[i] === '--size') opts.size = Number(argv[++i]);
    else throw new Error(`manydocs: unknown flag ${argv[i]}`);
  }
  if (opts.cmd.length === 0) throw new Error('usage: node manydocs.js [--docs N] [--size BYTES] -- CMD ARGS...');
  return opts;
}

// doc returns about size bytes of Go-like text, different for every i, with
// some non-ASCII so servers cannot take an ASCII-only shortcut.
function doc(i, size) {
  const lines = [`package p${i}\n`];
  let n = lines[0].length;
  for (let k = 0; n < size; k++) {
    const l = k % 7 === 0 ? `// f${k} of doc ${i}: naïve café 中文 😀\n` : `func f${i}_${k}(a, b int) int { return a*${k} + b }\n`;
    lines.push(l);
    n += Buffer.byteLength(l);
  }
  return lines.join('');
}

function memKB(pid) {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (k) => Number((s.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')) || [])[1] || 0);
  return { rss: get('VmRSS'), hwm: get('VmHWM') };
}

class Conn {
  constructor(child) {
    this.child = child;
    this.buf = Buffer.alloc(0);
    this.next = 1;
    this.pending = new Map();
    child.stdout.on('data', (d) => this.onData(d));
  }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const h = this.buf.indexOf('\r\n\r\n');
      if (h < 0) return;
      const m = /Content-Length: (\d+)/i.exec(this.buf.subarray(0, h).toString());
      const len = Number(m[1]);
      if (this.buf.length < h + 4 + len) return;
      const msg = JSON.parse(this.buf.subarray(h + 4, h + 4 + len).toString());
      this.buf = this.buf.subarray(h + 4 + len);
      this.onMessage(msg);
    }
  }
  onMessage(msg) {
    if (msg.method && msg.id !== undefined) { // a server request: answer null
      this.write({ jsonrpc: '2.0', id: msg.id, result: null });
    } else if (msg.id !== undefined && this.pending.has(msg.id)) {
      const { resolve } = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      resolve(msg);
    }
  }
  write(obj) {
    const body = Buffer.from(JSON.stringify(obj));
    return new Promise((resolve) => {
      const ok = this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
      if (ok) resolve(); else this.child.stdin.once('drain', resolve);
    });
  }
  request(method, params) {
    const id = this.next++;
    const p = new Promise((resolve) => this.pending.set(id, { resolve }));
    this.write({ jsonrpc: '2.0', id, method, params });
    return p;
  }
  notify(method, params) { return this.write({ jsonrpc: '2.0', method, params }); }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'manydocs-')));
  const child = cp.spawn(opts.cmd[0], opts.cmd.slice(1), { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const conn = new Conn(child);
  const root = pathToFileURL(dir).href;
  await conn.request('initialize', {
    processId: process.pid, rootUri: root, workspaceFolders: [{ uri: root, name: 'ws' }],
    capabilities: { general: { positionEncodings: ['utf-16'] } },
  });
  await conn.notify('initialized', {});
  // A request every server answers (an error is an answer) orders us after
  // everything sent before it.
  const sync = () => conn.request('workspace/executeCommand', { command: 'manydocs.sync', arguments: [] });
  await sync();
  const before = memKB(child.pid);
  let textBytes = 0;
  for (let i = 0; i < opts.docs; i++) {
    const text = doc(i, opts.size);
    textBytes += Buffer.byteLength(text);
    await conn.notify('textDocument/didOpen', {
      textDocument: { uri: pathToFileURL(path.join(dir, `doc${i}.go`)).href, languageId: 'go', version: 1, text },
    });
  }
  await sync();
  const after = memKB(child.pid);
  // Let a collector run (Go's scavenger, V8's idle GC) and look again.
  await new Promise((r) => setTimeout(r, 3000));
  await sync();
  const settled = memKB(child.pid);
  await conn.request('shutdown', null);
  await conn.notify('exit', null);
  const code = await exited;
  fs.rmSync(dir, { recursive: true, force: true });
  const r3 = (x) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({
    command: opts.cmd,
    docs: opts.docs,
    text_bytes: textBytes,
    rss_before_kb: before.rss,
    rss_after_open_kb: after.rss,
    rss_settled_kb: settled.rss,
    peak_rss_kb: settled.hwm,
    rss_settled_over_text: r3((settled.rss * 1024) / textBytes),
    peak_rss_over_text: r3((settled.hwm * 1024) / textBytes),
    growth_over_text: r3(((settled.rss - before.rss) * 1024) / textBytes),
    exit_code: code,
  }, null, 2));
}

main().catch((err) => { console.error(err); process.exit(1); });
