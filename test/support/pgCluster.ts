import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** The roles of a test cluster: the schema's owner, and two clients that are neither owner nor superuser. */
export const TEST_ROLES = ["awhm_owner", "awhm_alice", "awhm_bob"] as const
export type TestRole = (typeof TEST_ROLES)[number]

/** What the global setup exports to the test workers (one environment variable, JSON). */
export interface PgClusterInfo {
  /** Connection URL per role (TCP on 127.0.0.1, password authentication). */
  readonly urls: Readonly<Record<TestRole, string>>
  /** The superuser over the Unix socket in the cluster's folder (trust authentication, for test setup only). */
  readonly superuserUrl: string
}

export const PG_ENV = "AWHM_TEST_POSTGRES"

export interface PgCluster extends PgClusterInfo {
  readonly dir: string
  readonly stop: () => void
}

/** The newest Debian server binaries (`/usr/lib/postgresql/<major>/bin`), or AWHM_PG_BIN. */
export const findPgBin = (): string => {
  const fromEnv = process.env.AWHM_PG_BIN
  if (fromEnv !== undefined && fs.existsSync(path.join(fromEnv, "initdb"))) return fromEnv
  const root = "/usr/lib/postgresql"
  const majors = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
    : []
  if (majors.length === 0) throw new Error("PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin: apt-get install -y postgresql")
  return path.join(root, majors[0]!, "bin")
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

// A detached watchdog for an interrupted run (Ctrl-C, a killed CI job: no teardown, no exit handler runs):
// once the process that started the cluster is gone, it stops the server and removes its folder; it ends by
// itself when the folder is removed by a normal stop. Arguments: pid, folder, then the stop command.
const WATCHDOG = `
const [pid, dir, cmd, ...args] = process.argv.slice(1)
const fs = require("node:fs")
const alive = () => { try { process.kill(Number(pid), 0); return true } catch { return false } }
const timer = setInterval(() => {
  if (!fs.existsSync(dir)) return clearInterval(timer)
  if (alive()) return
  clearInterval(timer)
  try { require("node:child_process").execFileSync(cmd, args, { stdio: "ignore" }) } catch {}
  fs.rmSync(dir, { recursive: true, force: true })
}, 500)`

/** The temp folder if the `postgres` user can reach it (every folder above it searchable by others), else /tmp. */
const tempRootForOthers = (): string => {
  const tmp = os.tmpdir()
  for (let d = tmp; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return "/tmp"
    if (path.dirname(d) === d) return tmp
  }
}

/**
 * Starts a private cluster in a fresh temp folder: initdb, then a server on a Unix socket in that folder
 * and on 127.0.0.1:<free port>. Postgres refuses to run as root, so as root the folder is given to the
 * `postgres` user and the binaries run through `runuser`; otherwise they run as the current user.
 */
export const startPgCluster = async (): Promise<PgCluster> => {
  const bin = findPgBin()
  const asRoot = process.getuid?.() === 0
  const dir = fs.mkdtempSync(path.join(asRoot ? tempRootForOthers() : os.tmpdir(), "awhm-pg-"))
  const command = (tool: string, args: ReadonlyArray<string>): readonly [string, ReadonlyArray<string>] => {
    const file = path.join(bin, tool)
    return asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, [...args]]
  }
  const run = (tool: string, args: ReadonlyArray<string>) => {
    const [cmd, argv] = command(tool, args)
    return execFileSync(cmd, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" })
  }
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    fs.chownSync(dir, uid, gid)
  }
  const data = path.join(dir, "data")
  const stopArgs = ["-D", data, "-m", "fast", "-w", "stop"]
  let started = false
  const stop = () => {
    if (started) {
      try {
        run("pg_ctl", stopArgs)
      } catch {
        // already stopped
      }
      started = false
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
    const port = await freePort()
    // Durability off: a test cluster is thrown away; max_connections for 4 processes with their pools.
    const serverOptions = [`-k ${dir}`, "-h 127.0.0.1", `-p ${port}`, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=300"]
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-w", "-t", "60", "-o", serverOptions.join(" "), "start"])
    started = true
    const [stopCmd, stopArgv] = command("pg_ctl", stopArgs)
    spawn(process.execPath, ["-e", WATCHDOG, String(process.pid), dir, stopCmd, ...stopArgv], { detached: true, stdio: "ignore" }).unref()
    const passwords = Object.fromEntries(TEST_ROLES.map((r) => [r, randomBytes(12).toString("hex")])) as Record<TestRole, string>
    const statements = [
      ...TEST_ROLES.map((r) => `CREATE ROLE ${r} LOGIN PASSWORD '${passwords[r]}'`),
      "CREATE DATABASE awhm OWNER awhm_owner"
    ]
    for (const s of statements) run("psql", ["-h", dir, "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", s])
    const urls = Object.fromEntries(
      TEST_ROLES.map((r) => [r, `postgres://${r}:${passwords[r]}@127.0.0.1:${port}/awhm`])
    ) as Record<TestRole, string>
    return { dir, urls, superuserUrl: `postgres://postgres@/awhm?host=${encodeURIComponent(dir)}&port=${port}`, stop }
  } catch (e) {
    const log = path.join(dir, "server.log")
    const tail = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").slice(-5).join("\n") : ""
    stop()
    const stderr = (e as { stderr?: string }).stderr ?? ""
    throw new Error(`could not start a PostgreSQL test cluster: ${String(stderr).trim() || (e as Error).message}${tail ? `\n${tail}` : ""}`)
  }
}

/** The cluster the global setup started, for a test worker. */
export const testCluster = (): PgClusterInfo => {
  const raw = process.env[PG_ENV]
  if (raw === undefined) throw new Error(`${PG_ENV} is not set: the vitest global setup starts the PostgreSQL cluster`)
  return JSON.parse(raw) as PgClusterInfo
}
