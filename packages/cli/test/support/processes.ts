/**
 * The processes the test helpers start, and their end. Each runs in a process group of its own
 * and is killed, with every process under it (a stdio server runs in a group of its own, and
 * under `script` the command in a session of its own), when a bounded wait on it fails, when the
 * test that started it ends, and when this worker exits: a failing test leaves nothing running.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, type SpawnOptions, spawn } from "node:child_process"
import type { RunnerTask, RunnerTestCase as Test } from "vitest"
import { getCurrentTest } from "vitest/suite"

/**
 * The processes started and not yet seen to end, each with the test that started it: none when
 * that is not known (started in a suite hook, or in a concurrent test, where the running test is
 * whichever started last).
 */
const running = new Map<ChildProcessWithoutNullStreams, Test | undefined>()

const send = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal)
  } catch {
    // Gone already, or (a negative id) no such group.
  }
}

/** The ids of every process under `pid`, from one reading of the process table. */
export const descendantsOf = (pid: number): ReadonlyArray<number> => {
  const children = new Map<number, Array<number>>()
  for (const line of execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number)
    if (child === undefined || parent === undefined || !(child > 0)) continue
    children.set(parent, [...(children.get(parent) ?? []), child])
  }
  const found: Array<number> = []
  for (let queue = [pid]; queue.length > 0; ) {
    const next = queue.flatMap((parent) => children.get(parent) ?? [])
    found.push(...next)
    queue = next
  }
  return found
}

/**
 * Kills `pid`, every process under it and their process groups. The tree is stopped first, so
 * nothing in it starts another process (or ends and leaves its children to init) while it is
 * listed.
 */
const killTree = (pid: number) => {
  const stopped = new Set([pid])
  send(-pid, "SIGSTOP")
  send(pid, "SIGSTOP")
  for (let round = 0; round < 10; round++) {
    const fresh = descendantsOf(pid).filter((child) => !stopped.has(child))
    if (fresh.length === 0) break
    for (const child of fresh) {
      stopped.add(child)
      send(child, "SIGSTOP")
    }
  }
  for (const member of stopped) {
    send(-member, "SIGKILL")
    send(member, "SIGKILL")
  }
}

/** Kills a started process and everything under it, unless it has ended. */
export const stop = (child: ChildProcessWithoutNullStreams): void => {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) killTree(child.pid)
  running.delete(child)
}

/** Kills what the running test started: a bounded wait of it failed. (In a concurrent test: nothing yet.) */
export const stopTestProcesses = (): void => {
  const test = getCurrentTest()
  if (test === undefined) return
  for (const [child, startedBy] of running) if (startedBy === test) stop(child)
}

/** A concurrent test running now (one not started yet cannot have started a process). */
const runningNow = (task: RunnerTask): task is Test =>
  task.type === "test" && task.concurrent === true && task.result?.state === "run"

/** Every test under `task`. */
const testsOf = (task: RunnerTask): ReadonlyArray<RunnerTask> =>
  task.type === "test" ? [task] : "tasks" in task ? task.tasks.flatMap(testsOf) : []

/**
 * The tests a process started now belongs to: the running test, or in a concurrent suite (where
 * the running one is not known) every concurrent test of the file running now: sibling concurrent
 * suites run together, and the test vitest says is running may be another suite's.
 */
const ownersOf = (test: Test): ReadonlyArray<Test> =>
  test.concurrent === true ? testsOf(test.file).filter(runningNow) : [test]

/** Kills `child` once every test in `owners` has ended. */
const stopAfter = (child: ChildProcessWithoutNullStreams, owners: ReadonlyArray<Test>) => {
  let left = 0
  for (const owner of owners) {
    try {
      owner.context.onTestFinished(() => {
        left -= 1
        if (left === 0) stop(child)
      })
      left += 1
    } catch {
      // The test is running its own end hooks: it is over.
    }
  }
}

/**
 * Starts `command` in a process group of its own, its stdio piped; it is killed, with everything
 * under it, when the test that started it ends (in a concurrent suite: when the file's concurrent
 * tests running at its start have ended; started outside a test: when the worker exits).
 */
export const spawnOwned = (
  command: string,
  args: ReadonlyArray<string>,
  options: Pick<SpawnOptions, "cwd" | "env"> = {}
): ChildProcessWithoutNullStreams => {
  const child = spawn(command, [...args], { ...options, stdio: "pipe", detached: true })
  const test = getCurrentTest()
  running.set(child, test?.concurrent === true ? undefined : test)
  child.once("exit", () => running.delete(child))
  if (test !== undefined) stopAfter(child, ownersOf(test))
  return child
}

const stopAll = () => {
  for (const child of running.keys()) stop(child)
}
process.prependOnceListener("exit", stopAll)
// A worker ended by a signal: the processes go first (before vitest's own handler exits), then the
// signal does what it would have done.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.prependOnceListener(signal, () => {
    stopAll()
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  })
}
