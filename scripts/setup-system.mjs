#!/usr/bin/env node
// The system programs the test suite drives for real: a PostgreSQL 15 server (initdb, pg_ctl) for the
// team-memory backend and Chromium for the web viewer. Run by `npm test` before the tests. When one is
// missing: as root with apt-get (CI, a fresh Debian machine) it installs Debian's packages; otherwise it
// prints the one command that installs them and exits 1, so no test is silently left out.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"

const PG_LIB = "/usr/lib/postgresql"
const postgresBin = () => {
  if (!existsSync(PG_LIB)) return null
  const versions = readdirSync(PG_LIB).filter((v) => existsSync(`${PG_LIB}/${v}/bin/initdb`)).sort((a, b) => Number(b) - Number(a))
  return versions.length === 0 ? null : `${PG_LIB}/${versions[0]}/bin`
}
const chromium = () => (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : null)

const missing = []
if (postgresBin() === null) missing.push("postgresql")
if (chromium() === null) missing.push("chromium")
if (missing.length === 0) process.exit(0)

const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(" ")}`
const isRoot = typeof process.getuid === "function" && process.getuid() === 0
const hasApt = existsSync("/usr/bin/apt-get")
if (!isRoot || !hasApt) {
  console.error(`awhm tests need ${missing.join(" and ")}: install ${missing.length === 1 ? "it" : "them"} with\n  sudo ${command}`)
  process.exit(1)
}
console.error(`setup: installing ${missing.join(", ")} (Debian packages)`)
execFileSync("bash", ["-c", command], { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } })
if (postgresBin() === null || chromium() === null) {
  console.error("setup: the packages installed, but initdb or /usr/bin/chromium is still missing")
  process.exit(1)
}
