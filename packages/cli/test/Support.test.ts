/**
 * The test helpers leave nothing running: what `start` and `startOnTerminal` started is killed,
 * with every process under it (the reference server the command started, and on a terminal the
 * command under `script`), when a bounded wait on it fails and when the test ends (in a
 * concurrent suite, where the running test is not known: when the file's concurrent tests have ended).
 */
import { describe, expect, it, onTestFinished } from "@effect/vitest"
import { eventually, everythingStdio, start } from "./support/cli.js"
import { descendantsOf, startOnTerminal } from "./support/pty.js"

/** A call that runs for a minute (progress every 100 ms), the reference server under it. */
const long = ["tools", "call", "trigger-long-running-operation", "duration:=60", "steps:=600", ...everythingStdio]

const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "ESRCH"
  }
}

/** The process and every process under it, once the reference server is among them. */
const treeOf = (pid: number | undefined): ReadonlyArray<number> => {
  const tree = pid === undefined ? [] : [pid, ...descendantsOf(pid)]
  // The root, effect-mcp (under `script`: itself) and the server.
  expect(tree.length).toBeGreaterThanOrEqual(2)
  return tree
}

const allGone = async (pids: ReadonlyArray<number>) => {
  for (let waited = 0; waited < 10_000 && !pids.every(isGone); waited += 25) {
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  expect(pids.filter((pid) => !isGone(pid))).toStrictEqual([])
}

describe("the test helpers' processes", () => {
  it("a failed wait kills the run it waited on (`waitFor`), or the test's runs (`eventually`)", async () => {
    const terminal = startOnTerminal(long)
    const started = start(long)
    await terminal.waitFor(/calling trigger-long-running-operation {2}1\//)
    await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
    const onTerminal = treeOf(terminal.child.pid)
    const piped = treeOf(started.child.pid)
    // `script`, effect-mcp and the server.
    expect(onTerminal.length).toBeGreaterThanOrEqual(3)
    await expect(terminal.waitFor("never shown", 0, 100)).rejects.toThrow("the screen never showed never shown")
    await allGone(onTerminal)
    expect(piped.filter(isGone)).toStrictEqual([])
    await expect(eventually(() => started.stdout().includes("never printed"), "text", 100)).rejects.toThrow(
      "timed out waiting for text"
    )
    await allGone(piped)
  })

  it("what a test leaves running is killed when it ends", async () => {
    const pids: Array<number> = []
    // Hooks run last registered first: this one checks after the helpers' own.
    onTestFinished(() => allGone(pids))
    const terminal = startOnTerminal(long)
    const started = start(long)
    await terminal.waitFor(/calling trigger-long-running-operation {2}1\//)
    await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
    pids.push(...treeOf(terminal.child.pid), ...treeOf(started.child.pid))
  })
})

/** A promise and its resolving, for tests that wait on each other. */
const signal = () => {
  let resolve = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve: () => resolve() }
}

/**
 * Starts a long run once the other test has started (so that it is the one vitest says is
 * running), records the run's processes, and checks that it still runs after the other test ended.
 */
const outlives = async (the: {
  readonly otherStarted: ReturnType<typeof signal>
  readonly runStarted: ReturnType<typeof signal>
  readonly otherEnded: ReturnType<typeof signal>
  readonly pids: Array<number>
}) => {
  await the.otherStarted.promise
  const started = start(long)
  await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
  the.pids.push(...treeOf(started.child.pid))
  the.runStarted.resolve()
  await the.otherEnded.promise
  // Still running: it goes on reporting progress.
  const seen = started.stderr().length
  await eventually(() => started.stderr().slice(seen).includes("progress"), "more progress", 5_000)
}

describe("in a concurrent suite", () => {
  const siblingStarted = signal()
  const runStarted = signal()
  const siblingEnded = signal()
  const pids: Array<number> = []
  describe.concurrent("two tests", () => {
    it("a run outlives the sibling test that started last and ended first", async () => {
      // Started while the sibling is the running test.
      await outlives({ otherStarted: siblingStarted, runStarted, otherEnded: siblingEnded, pids })
    })

    it("the sibling", async () => {
      onTestFinished(() => siblingEnded.resolve())
      siblingStarted.resolve()
      await runStarted.promise
    })
  })

  it("the run is killed once the suite's tests have ended", () => allGone(pids))
})

describe("in sibling concurrent suites (which run together)", () => {
  const otherStarted = signal()
  const runStarted = signal()
  const otherEnded = signal()
  const pids: Array<number> = []
  describe.concurrent("one suite", () => {
    it("a run outlives the other suite's test that started last and ended first", async () => {
      // Started while the other suite's test is the one vitest says is running.
      await outlives({ otherStarted, runStarted, otherEnded, pids })
    })
  })

  describe.concurrent("another suite", () => {
    it("the other suite's test", async () => {
      onTestFinished(() => otherEnded.resolve())
      otherStarted.resolve()
      await runStarted.promise
    })
  })

  it("the run is killed once the suites' tests have ended", () => allGone(pids))
})
