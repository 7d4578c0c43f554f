import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

/** Debian's Chromium (`apt-get install chromium`); playwright-core drives it and downloads nothing. */
export const CHROMIUM = process.env.AWHM_CHROMIUM ?? "/usr/bin/chromium"

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface TestBrowser {
  readonly context: BrowserContext
  readonly close: () => Promise<void>
}

/** A headless Chromium with a fresh profile (removed on close). */
export const launchBrowser = async (viewport = { width: 1280, height: 900 }): Promise<TestBrowser> => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-chromium-"))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport })
  return {
    context,
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}
