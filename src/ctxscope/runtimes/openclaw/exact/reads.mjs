// What the runtime reads from disk while it prepares part of a session, so that the helper can
// keep what it prepared until one of those reads would answer differently.
//
// `watchReads()` wraps the `node:fs` functions that look at a path (on the module object, its
// named exports and `fs.promises`) before the runtime is loaded. While a `Reads` records, each
// path looked at is noted with how it was looked at and what the answer was then: whether it
// exists, its stat (a file's inode, size, modification and change times and mode; a folder's
// identity and mode), a folder's entries and their kinds, a link's target, where a path
// resolves. `Reads.stale()` asks each again and says whether one differs. Paths the runtime
// itself writes at any time (its log, its own state) are left out, and so are the folders it
// owns: the helper's private home (its state folder) and the installed package with the
// modules beside it, which do not change while it runs.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// How each function looks at its first argument.
const LOOKS = {
  existsSync: "exists",
  exists: "exists",
  accessSync: "stat", // exists, and with which mode
  access: "stat",
  statSync: "stat",
  stat: "stat",
  lstatSync: "lstat",
  lstat: "lstat",
  readFileSync: "stat",
  readFile: "stat",
  openSync: "stat",
  open: "stat",
  createReadStream: "stat",
  readdirSync: "list",
  readdir: "list",
  opendirSync: "list",
  opendir: "list",
  realpathSync: "real",
  realpath: "real",
  readlinkSync: "link",
  readlink: "link",
};
// Functions that write the path they are given (each named argument's index).
const WRITES = {
  writeFileSync: [0],
  writeFile: [0],
  appendFileSync: [0],
  appendFile: [0],
  rmSync: [0],
  rm: [0],
  unlinkSync: [0],
  unlink: [0],
  renameSync: [0, 1],
  rename: [0, 1],
  symlinkSync: [1],
  symlink: [1],
  copyFileSync: [1],
  copyFile: [1],
  createWriteStream: [0],
  utimesSync: [0],
  utimes: [0],
  truncateSync: [0],
  truncate: [0],
};

// The original functions, which answer the helper's own questions unrecorded.
const plain = {
  existsSync: fs.existsSync,
  statSync: fs.statSync,
  lstatSync: fs.lstatSync,
  readdirSync: fs.readdirSync,
  realpathSync: fs.realpathSync,
  readlinkSync: fs.readlinkSync,
};

// A file by its identity, size, times and mode; a folder by its identity and mode only (its
// times move with any entry written in it, such as another program's in /tmp, and the
// runtime's checks of a folder on the way to a path ask what it is, not what it holds: its
// entries are watched where the runtime lists them).
function statText(stat) {
  if (!stat) return "-";
  if (stat.isDirectory()) return `dir:${stat.dev}:${stat.ino}:${stat.mode}:${stat.uid}`;
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.mode}:${stat.uid}`;
}

/** What looking at `file` in the way `look` answers now, as text. */
function answer(look, file) {
  try {
    switch (look) {
      case "exists":
        return plain.existsSync(file) ? "1" : "0";
      case "stat":
        return statText(plain.statSync(file, { throwIfNoEntry: false }));
      case "lstat":
        return statText(plain.lstatSync(file, { throwIfNoEntry: false }));
      case "list":
        return plain
          .readdirSync(file, { withFileTypes: true })
          .map((entry) => `${entry.isDirectory() ? "d" : entry.isSymbolicLink() ? "l" : "f"}${entry.name}`)
          .sort()
          .join("\n");
      case "real":
        return plain.realpathSync(file);
      case "link":
        return plain.readlinkSync(file);
    }
  } catch (err) {
    return `!${err?.code ?? "error"}`;
  }
  return "?";
}

function pathOf(value) {
  if (typeof value === "string") return path.resolve(value);
  if (value instanceof URL) return value.protocol === "file:" ? fileURLToPath(value) : null;
  if (Buffer.isBuffer(value)) return path.resolve(value.toString());
  return null; // a file descriptor or a file handle: its path was noted when it was opened
}

function writesFlags(flags) {
  if (typeof flags === "number") return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0;
  return typeof flags === "string" && /[wa+]/.test(flags);
}

let current = null;
// Every path the runtime has written while the helper runs (its log, its state): its own, so
// never a reason to prepare again.
const written = new Set();

/** The reads of one part of the work, with what each answered when it was made. */
export class Reads {
  constructor(owned) {
    this.owned = owned.map((folder) => folder + path.sep);
    this.seen = new Map();
  }

  /** Record the reads made until `stop()` (or `pause()`). */
  start() {
    current = this;
    return this;
  }

  stop() {
    if (current === this) current = null;
    return this;
  }

  note(look, file) {
    if (this.owned.some((folder) => file.startsWith(folder))) return;
    const key = `${look}\0${file}`;
    if (!this.seen.has(key)) this.seen.set(key, answer(look, file));
  }

  /** Whether any recorded read would answer differently now. */
  stale() {
    for (const [key, was] of this.seen) {
      const cut = key.indexOf("\0");
      if (written.has(key.slice(cut + 1))) continue;
      if (answer(key.slice(0, cut), key.slice(cut + 1)) !== was) return true;
    }
    return false;
  }

  get size() {
    return this.seen.size;
  }
}

function wrap(owner, name, look, writes) {
  const original = owner[name];
  if (typeof original !== "function") return;
  const wrapped = function (...args) {
    if (writes) {
      for (const i of writes) {
        const target = pathOf(args[i]);
        if (target) written.add(target);
      }
    } else if ((name === "open" || name === "openSync") && writesFlags(args[1])) {
      const file = pathOf(args[0]);
      if (file) written.add(file);
    } else if (current) {
      const file = pathOf(args[0]);
      if (file) current.note(look, file);
    }
    return original.apply(this, args);
  };
  // Keep what hangs on the original (`util.promisify.custom`, `realpathSync.native`).
  for (const key of Reflect.ownKeys(original)) {
    if (key === "length" || key === "name" || key === "prototype") continue;
    const described = Object.getOwnPropertyDescriptor(original, key);
    if (described) Object.defineProperty(wrapped, key, described);
  }
  if (typeof original.native === "function") {
    const native = original.native;
    wrapped.native = function (...args) {
      const file = current && pathOf(args[0]);
      if (file) current.note("real", file);
      return native.apply(this, args);
    };
  }
  owner[name] = wrapped;
}

let watching = false;

/** Wrap `node:fs` once, before the runtime's modules are loaded. */
export function watchReads() {
  if (watching) return;
  watching = true;
  for (const owner of [fs, fs.promises]) {
    for (const [name, look] of Object.entries(LOOKS)) wrap(owner, name, look, null);
    for (const [name, writes] of Object.entries(WRITES)) wrap(owner, name, null, writes);
  }
  syncBuiltinESMExports();
}

/** Prepared work kept per key while nothing it read has changed (the `limit` newest keys). */
export class Kept {
  constructor(limit, drop = () => {}) {
    this.limit = limit;
    this.drop = drop;
    this.entries = new Map();
  }

  /** The work kept for `key`, when nothing it read has changed since. */
  get(key) {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.reads.stale()) {
      this.drop(entry.value);
      return undefined;
    }
    this.entries.set(key, entry); // the newest again
    return entry.value;
  }

  set(key, value, reads) {
    const old = this.entries.get(key);
    if (old) this.drop(old.value);
    this.entries.delete(key);
    this.entries.set(key, { value, reads });
    while (this.entries.size > this.limit) {
      const [oldest, entry] = this.entries.entries().next().value;
      this.entries.delete(oldest);
      this.drop(entry.value);
    }
  }
}
