/**
 * The writable `/tmp` of a sandbox: an in-memory volume (memfs) on the host side of the sandbox,
 * one per key, reached by the guest's `fs` shim through the synchronous host operation `fs`. It
 * lives in the thread of the QuickJS instance that uses it (the calling thread or a worker), and
 * outlives the sandboxes of one mounted component (they are rebuilt after errors) until
 * {@link releaseTmp}. Every path is resolved against `/` and must be `/tmp` or below it, else
 * `EACCES`; symbolic links are stored with absolute targets inside `/tmp`; the bytes of regular
 * files and the number of entries are capped (`ENOSPC`). The volume holds nothing but this `/tmp`,
 * so nothing else of the host is reachable by construction. See docs/decisions/.
 */
import { createRequire } from "node:module";
import { posix } from "node:path";
import type { Volume } from "memfs";

// memfs takes about 100 ms to import: loaded on the first /tmp call of the process, synchronously
// (the guest's fs calls are synchronous host functions).
let VolumeClass: typeof Volume | undefined;
function newVolume(): Volume {
  VolumeClass ??= (createRequire(import.meta.url)("memfs") as typeof import("memfs")).Volume;
  return new VolumeClass();
}

/** Where the guest's writable folder is. */
export const TMP_DIR = "/tmp";

/** Options of one `/tmp` volume. */
export interface TmpOptions {
  /** Identifies the volume in this thread: sandboxes given the same key share it. */
  key: string;
  /** Most bytes its regular files may hold together. */
  maxBytes: number;
  /** Most files, folders and links it may hold (default 10,000). */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const MAX_OPEN_FILES = 128;

const ERRNO: Record<string, number> = {
  EBADF: -9,
  EACCES: -13,
  EEXIST: -17,
  ENOTDIR: -20,
  EISDIR: -21,
  EINVAL: -22,
  EMFILE: -24,
  ENOSPC: -28,
  ENOTEMPTY: -39,
  ELOOP: -40,
  ENOENT: -2,
};
const DESCRIPTIONS: Record<string, string> = {
  EACCES: "permission denied",
  EBADF: "bad file descriptor",
  EINVAL: "invalid argument",
  EMFILE: "too many open files",
  ENOSPC: "no space left on device",
};

/** An error as the guest rebuilds it (`code`, `errno`, `syscall`, `path`, Node's message). */
interface FsError {
  code: string;
  errno: number;
  syscall: string;
  path?: string;
  message: string;
}

class GuestFsError extends Error {
  constructor(
    readonly code: string,
    readonly syscall: string,
    readonly path?: string,
    detail?: string,
  ) {
    super(
      `${code}: ${DESCRIPTIONS[code] ?? code.toLowerCase()}${detail ? ` (${detail})` : ""}, ${syscall}${path === undefined ? "" : ` '${path}'`}`,
    );
  }
}

/** Data the guest sends or receives: text as is, bytes as base64. */
type Data = { s: string } | { b64: string };
const toBuffer = (data: Data): Buffer =>
  "s" in data ? Buffer.from(data.s, "utf8") : Buffer.from(data.b64, "base64");

interface Handle {
  position: number;
  append: boolean;
}

type Args = Record<string, unknown>;

/** One `/tmp`: the memfs volume and its accounting. */
export class TmpVolume {
  private readonly vol = newVolume();
  private readonly maxEntries: number;
  private readonly handles = new Map<number, Handle>();
  private used = 0;
  private entries = 1;

  constructor(readonly options: TmpOptions) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.vol.mkdirSync(TMP_DIR);
  }

  /** Bytes its regular files hold. */
  get usedBytes(): number {
    return this.used;
  }

  /** Runs one operation; the JSON result is `{"r": value}` or `{"e": FsError}`. */
  call(argJson: string): string {
    const { op, ...args } = JSON.parse(argJson) as { op: string } & Args;
    try {
      const fn = this.ops[op];
      if (!fn) throw new GuestFsError("EINVAL", op, undefined, "unknown operation");
      const result = fn(args);
      return JSON.stringify(result === undefined ? {} : { r: result });
    } catch (error) {
      return JSON.stringify({ e: toFsError(error, op) });
    }
  }

  /** Frees what the volume holds. */
  dispose(): void {
    for (const fd of this.handles.keys()) this.vol.closeSync(fd);
    this.handles.clear();
    this.vol.reset();
  }

  /** The absolute guest path of `p`, refused with EACCES outside /tmp. */
  private guard(p: unknown, syscall: string): string {
    if (typeof p !== "string" || p === "" || p.includes("\0"))
      throw new GuestFsError("EINVAL", syscall, typeof p === "string" ? p : undefined, "bad path");
    const abs = posix.resolve("/", p);
    if (abs !== TMP_DIR && !abs.startsWith(`${TMP_DIR}/`))
      throw new GuestFsError("EACCES", syscall, p, "only /tmp is writable in the sandbox");
    return abs;
  }

  private fd(value: unknown, syscall: string): number {
    if (typeof value !== "number" || !this.handles.has(value)) throw new GuestFsError("EBADF", syscall);
    return value;
  }

  private sizeOf(path: string): number | undefined {
    try {
      const st = this.vol.statSync(path);
      return st.isFile() ? Number(st.size) : 0;
    } catch {
      return undefined;
    }
  }

  private exists(path: string): boolean {
    try {
      this.vol.lstatSync(path);
      return true;
    } catch {
      return false;
    }
  }

  /** Refuses growing the files by `growth` bytes and `added` entries past the caps. */
  private reserve(growth: number, added: number, syscall: string, path?: string): void {
    if (growth > 0 && this.used + growth > this.options.maxBytes)
      throw new GuestFsError("ENOSPC", syscall, path, `/tmp is limited to ${this.options.maxBytes} bytes`);
    if (added > 0 && this.entries + added > this.maxEntries)
      throw new GuestFsError("ENOSPC", syscall, path, `/tmp is limited to ${this.maxEntries} entries`);
  }

  /** Recounts bytes and entries after something was removed or replaced. */
  private recount(): void {
    let used = 0;
    let entries = 0;
    const walk = (dir: string) => {
      for (const entry of this.vol.readdirSync(dir, { withFileTypes: true }) as {
        name: string;
        isFile(): boolean;
        isDirectory(): boolean;
      }[]) {
        entries++;
        const path = posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile()) used += Number(this.vol.lstatSync(path).size);
      }
    };
    walk("/");
    this.used = used;
    this.entries = entries;
  }

  private stat(st: {
    isFile(): boolean;
    isDirectory(): boolean;
    isSymbolicLink(): boolean;
    size: number | bigint;
    mode: number | bigint;
    ino: number | bigint;
    nlink: number | bigint;
    atimeMs: number | bigint;
    mtimeMs: number | bigint;
    ctimeMs: number | bigint;
    birthtimeMs: number | bigint;
  }) {
    return {
      kind: st.isFile() ? "file" : st.isDirectory() ? "dir" : st.isSymbolicLink() ? "link" : "other",
      size: Number(st.size),
      mode: Number(st.mode),
      ino: Number(st.ino),
      nlink: Number(st.nlink),
      atimeMs: Number(st.atimeMs),
      mtimeMs: Number(st.mtimeMs),
      ctimeMs: Number(st.ctimeMs),
      birthtimeMs: Number(st.birthtimeMs),
    };
  }

  private readonly ops: Record<string, (args: Args) => unknown> = {
    stat: ({ p, lstat }) => {
      const path = this.guard(p, lstat ? "lstat" : "stat");
      return this.stat(lstat ? this.vol.lstatSync(path) : this.vol.statSync(path));
    },
    readFile: ({ p, utf8 }) => {
      const data = this.vol.readFileSync(this.guard(p, "open")) as Buffer;
      return utf8 ? { s: data.toString("utf8") } : { b64: data.toString("base64") };
    },
    writeFile: ({ p, data, append, excl }) => {
      const path = this.guard(p, "open");
      const bytes = toBuffer(data as Data);
      const before = this.sizeOf(path);
      if (before !== undefined && excl) throw new GuestFsError("EEXIST", "open", p as string);
      const growth = append ? bytes.length : bytes.length - (before ?? 0);
      this.reserve(growth, before === undefined ? 1 : 0, "write", path);
      this.vol.writeFileSync(path, bytes, { flag: append ? "a" : "w" });
      this.used += growth;
      if (before === undefined) this.entries++;
    },
    mkdir: ({ p, recursive }) => {
      const path = this.guard(p, "mkdir");
      let first: string | undefined;
      let missing = 0;
      for (let dir = path; !this.exists(dir); dir = posix.dirname(dir)) {
        first = dir;
        missing++;
      }
      this.reserve(0, recursive ? missing : 1, "mkdir", path);
      this.vol.mkdirSync(path, { recursive: recursive === true });
      this.entries += recursive ? missing : 1;
      return recursive ? first : undefined;
    },
    readdir: ({ p }) => {
      const path = this.guard(p, "scandir");
      const list = this.vol.readdirSync(path, { withFileTypes: true }) as {
        name: string;
        isFile(): boolean;
        isDirectory(): boolean;
      }[];
      return list
        .map((d) => [String(d.name), d.isFile() ? "file" : d.isDirectory() ? "dir" : "link"])
        .sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
    },
    unlink: ({ p }) => {
      this.vol.unlinkSync(this.guard(p, "unlink"));
      this.recount();
    },
    rmdir: ({ p }) => {
      const path = this.guard(p, "rmdir");
      if (path === TMP_DIR) throw new GuestFsError("EACCES", "rmdir", p as string);
      this.vol.rmdirSync(path);
      this.recount();
    },
    rm: ({ p, recursive, force }) => {
      const path = this.guard(p, "rm");
      if (path === TMP_DIR) throw new GuestFsError("EACCES", "rm", p as string);
      this.vol.rmSync(path, { recursive: recursive === true, force: force === true });
      this.recount();
    },
    rename: ({ from, to }) => {
      const src = this.guard(from, "rename");
      const dest = this.guard(to, "rename");
      if (this.vol.lstatSync(src).isSymbolicLink()) {
        // memfs renames a link's target instead of the link: move the link by hand.
        const target = String(this.vol.readlinkSync(src));
        if (this.exists(dest)) this.vol.unlinkSync(dest);
        this.vol.symlinkSync(target, dest);
        this.vol.unlinkSync(src);
      } else this.vol.renameSync(src, dest);
      this.recount();
    },
    copyFile: ({ from, to, excl }) => {
      const src = this.guard(from, "copyfile");
      const dest = this.guard(to, "copyfile");
      const size = this.sizeOf(src) ?? 0;
      const before = this.sizeOf(dest);
      this.reserve(size - (before ?? 0), before === undefined ? 1 : 0, "copyfile", dest);
      this.vol.copyFileSync(src, dest, excl ? 1 : 0);
      this.recount();
    },
    truncate: ({ p, fd, len }) => {
      const length = Math.max(0, Number(len ?? 0));
      if (fd !== undefined) {
        const handle = this.fd(fd, "ftruncate");
        this.reserve(length - Number(this.vol.fstatSync(handle).size), 0, "ftruncate");
        this.vol.ftruncateSync(handle, length);
      } else {
        const path = this.guard(p, "open");
        this.reserve(length - (this.sizeOf(path) ?? 0), 0, "open", path);
        this.vol.truncateSync(path, length);
      }
      this.recount();
    },
    realpath: ({ p }) => String(this.vol.realpathSync(this.guard(p, "realpath"))),
    mkdtemp: ({ prefix }) => {
      // resolve() drops a trailing slash, which mkdtemp keeps ("/tmp/" makes "/tmp/XXXXXX").
      const base = this.guard(prefix, "mkdtemp") + (String(prefix).endsWith("/") ? "/" : "");
      // "/tmp" + six characters would be a sibling of /tmp.
      if (!base.startsWith(`${TMP_DIR}/`)) throw new GuestFsError("EACCES", "mkdtemp", base);
      this.reserve(0, 1, "mkdtemp", prefix as string);
      const made = String(this.vol.mkdtempSync(base));
      this.entries++;
      return made;
    },
    symlink: ({ target, p }) => {
      const path = this.guard(p, "symlink");
      if (typeof target !== "string") throw new GuestFsError("EINVAL", "symlink", path);
      // Stored absolute: moving the link can never make it point elsewhere.
      const absolute = this.guard(posix.resolve(posix.dirname(path), target), "symlink");
      this.reserve(0, 1, "symlink", path);
      this.vol.symlinkSync(absolute, path);
      this.entries++;
    },
    readlink: ({ p }) => String(this.vol.readlinkSync(this.guard(p, "readlink"))),
    access: ({ p }) => {
      this.vol.accessSync(this.guard(p, "access"));
    },
    utimes: ({ p, atime, mtime }) => {
      this.vol.utimesSync(this.guard(p, "utime"), Number(atime), Number(mtime));
    },
    chmod: ({ p, mode }) => {
      this.vol.chmodSync(this.guard(p, "chmod"), Number(mode));
    },
    open: ({ p, flags }) => {
      const path = this.guard(p, "open");
      const flag = typeof flags === "string" ? flags : "r";
      if (this.handles.size >= MAX_OPEN_FILES) throw new GuestFsError("EMFILE", "open", path);
      const before = this.sizeOf(path);
      const creates = /[wax]/.test(flag) && before === undefined;
      if (creates) this.reserve(0, 1, "open", path);
      const fd = this.vol.openSync(path, flag);
      if (creates) this.entries++;
      else if (flag.startsWith("w")) this.used -= before ?? 0;
      this.handles.set(fd, { position: 0, append: flag.startsWith("a") });
      return fd;
    },
    close: ({ fd }) => {
      const handle = this.fd(fd, "close");
      this.handles.delete(handle);
      this.vol.closeSync(handle);
    },
    fstat: ({ fd }) => this.stat(this.vol.fstatSync(this.fd(fd, "fstat"))),
    read: ({ fd, len, pos }) => {
      const handle = this.fd(fd, "read");
      const state = this.handles.get(handle) as Handle;
      const position = typeof pos === "number" ? pos : state.position;
      const buffer = Buffer.alloc(Math.max(0, Math.min(Number(len) || 0, 8 * 1024 * 1024)));
      const n = this.vol.readSync(handle, buffer, 0, buffer.length, position);
      if (typeof pos !== "number") state.position += n;
      return buffer.subarray(0, n).toString("base64");
    },
    write: ({ fd, data, pos }) => {
      const handle = this.fd(fd, "write");
      const state = this.handles.get(handle) as Handle;
      const bytes = toBuffer(data as Data);
      const size = Number(this.vol.fstatSync(handle).size);
      const position = state.append ? size : typeof pos === "number" ? pos : state.position;
      this.reserve(position + bytes.length - size, 0, "write");
      const n = this.vol.writeSync(handle, bytes, 0, bytes.length, position);
      if (typeof pos !== "number" || state.append) state.position = position + n;
      this.used += Math.max(0, position + n - size);
      return n;
    },
  };
}

function toFsError(error: unknown, syscall: string): FsError {
  const e = error as { code?: unknown; syscall?: unknown; path?: unknown; message?: unknown };
  const code = typeof e.code === "string" ? e.code : "EIO";
  const out: FsError = {
    code,
    errno: ERRNO[code] ?? -5,
    syscall: typeof e.syscall === "string" ? e.syscall : syscall,
    message: typeof e.message === "string" ? e.message : String(error),
  };
  if (typeof e.path === "string") out.path = e.path;
  return out;
}

const volumes = new Map<string, TmpVolume>();

/** The volume of `options.key` in this thread, made on first use. */
export function openTmp(options: TmpOptions): TmpVolume {
  let volume = volumes.get(options.key);
  if (!volume) {
    volume = new TmpVolume(options);
    volumes.set(options.key, volume);
  }
  return volume;
}

/** Frees the volume of `key` in this thread (a mounted component was disposed). */
export function releaseTmp(key: string): void {
  volumes.get(key)?.dispose();
  volumes.delete(key);
}
