// Temp files that hold credentials (the kubeconfig's admin key, a control plane's CA key and token file)
// must not outlive the test process: removed on stop(), on process exit (also after an uncaught
// exception), on SIGINT/SIGTERM/SIGHUP (then the signal is re-raised, so the process still dies of it),
// and, for SIGKILL or a power cut, swept at the next start when the owning pid is gone.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

/** Signals whose default action ends the process and that a test run commonly receives. */
const terminatingSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type TerminatingSignal = (typeof terminatingSignals)[number];

const cleanups = new Set<() => void>();
let installed = false;

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Best effort while the process is going away; nothing is left to report to.
    }
  }
}

function onSignal(signal: TerminatingSignal): void {
  // Another listener owns this signal (a test runner, the application): it decides whether the process
  // ends, and the 'exit' handler cleans up if it does.
  if (process.listenerCount(signal) > 1) return;
  runCleanups();
  uninstall();
  // With no listener left Node restores the default disposition: the process ends of this signal, with
  // the exit status a shell and a parent process expect (128 + n), as if we had never listened.
  process.kill(process.pid, signal);
}

const signalListeners = new Map<TerminatingSignal, () => void>(
  terminatingSignals.map((signal) => [signal, () => onSignal(signal)]),
);

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runCleanups);
  // Worker threads get no signals (the main thread does); re-raising there would kill the whole process.
  if (isMainThread) {
    for (const [signal, listener] of signalListeners) process.on(signal, listener);
  }
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.removeListener('exit', runCleanups);
  for (const [signal, listener] of signalListeners) process.removeListener(signal, listener);
}

/**
 * Run `cleanup` (synchronously) when the process exits or is ended by SIGINT/SIGTERM/SIGHUP, unless the
 * returned function is called first. One listener per event serves every registration, so many
 * environments do not trip `MaxListenersExceededWarning`; the listeners go away with the last one.
 */
export function atProcessExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  install();
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) uninstall();
  };
}

/** The prefix of the temp dirs this package creates; the owning pid follows it. */
export const tempDirPrefix = 'lasso-envtest-';

/**
 * Create a private (0700) temp dir named `lasso-envtest-{kind}-{pid}-XXXXXX` under `parent` (default
 * `os.tmpdir()`), so {@link sweepStaleTempDirs} can tell whether its owner is still running.
 */
export function makePrivateTempDir(kind: string, parent: string = tmpdir()): string {
  return mkdtempSync(join(parent, `${tempDirPrefix}${kind}-${process.pid}-`));
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Kill the processes of the current user whose command line names a path inside `directory`: an etcd
 * and kube-apiserver started by a test process that was SIGKILLed outlive it (their parent's exit
 * handler never ran), and their arguments always point into the control plane's private temp dir, a
 * path no unrelated process names. Linux only (reads /proc); elsewhere nothing is killed. Returns the
 * pids signalled.
 */
export function killOrphansOf(directory: string): number[] {
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return killed;
  }
  const uid = process.getuid?.();
  const inside = `${directory}/`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${entry}`).uid !== uid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!argv.some((argument) => argument.includes(inside) || argument === directory)) continue;
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // The process ended meanwhile, or is not ours to read or signal.
    }
  }
  return killed;
}

const ownedName = new RegExp(`^${tempDirPrefix}[a-z]+-(\\d+)-[A-Za-z0-9]{6}$`);

/**
 * Remove the temp dirs under `parent` (default `os.tmpdir()`) that {@link makePrivateTempDir} made for
 * a process that is gone (killed with SIGKILL, or the machine stopped), and that the current user owns,
 * after killing the orphaned processes (etcd, kube-apiserver) still running from them ({@link killOrphansOf}).
 * Best effort: returns the paths removed, never throws. A pid reused by another process keeps its dir
 * until that process ends too.
 */
export function sweepStaleTempDirs(parent: string = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const match = ownedName.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || running(pid)) continue;
    const path = join(parent, name);
    try {
      const stats = statSync(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      // Orphaned children first: an etcd still running would keep writing into the dir being removed.
      killOrphansOf(path);
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Removed by another sweeper meanwhile, or not ours to remove.
    }
  }
  return removed;
}
