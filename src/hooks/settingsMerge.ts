// awhm's entries in a Claude Code settings object: put in (replacing older ones in place) and taken out,
// every other key and hook kept as it was. Pure: settingsFile.ts reads and writes the file.

/** A settings object whose shape is not Claude Code's: where, and what is wrong there. */
export class SettingsShape extends Error {}

type Obj = Record<string, unknown>
interface Hook extends Obj {
  readonly command?: unknown
}
interface Group extends Obj {
  readonly hooks: ReadonlyArray<Hook>
}

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** Which `awhm hook …` a hook command runs ("prompt", "session-end", …), or null when it is not awhm's. */
export const awhmHookOf = (command: unknown): string | null => {
  if (typeof command !== "string") return null
  const m = /(?:^|[\s/'"=])awhm(?:\.mjs)?['"]?\s+hook\s+(session-start|prompt|stop|session-end)(?=[\s'"]|$)/.exec(command)
  return m === null ? null : m[1]!
}

/** The `hooks` of a settings object as Claude Code reads them, checked; SettingsShape names what is wrong. */
export const hooksOf = (settings: unknown): Record<string, ReadonlyArray<Group>> => {
  if (!isObject(settings)) throw new SettingsShape("it is not a JSON object")
  if (settings.hooks === undefined) return {}
  if (!isObject(settings.hooks)) throw new SettingsShape(`its "hooks" is not an object`)
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) throw new SettingsShape(`its "hooks.${event}" is not a list`)
    groups.forEach((g: unknown, i) => {
      if (!isObject(g) || !Array.isArray(g.hooks)) throw new SettingsShape(`its "hooks.${event}[${i}]" has no "hooks" list`)
    })
  }
  return settings.hooks as Record<string, ReadonlyArray<Group>>
}

/** One hook of awhm's settings block: the Claude Code event, the command and its timeout. */
export interface AwhmHookEntry {
  readonly event: string
  readonly hook: Hook
}

export interface MergeOutcome {
  readonly settings: Obj
  readonly added: ReadonlyArray<string>
  readonly updated: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
}

const sameHook = (a: Hook, b: Hook) => JSON.stringify(a) === JSON.stringify(b)

/** Drops awhm's hooks, and the groups and events left empty by that. */
const withoutAwhm = (hooks: Record<string, ReadonlyArray<Group>>) => {
  const out: Record<string, ReadonlyArray<Group>> = {}
  const removed = new Set<string>()
  for (const [event, groups] of Object.entries(hooks)) {
    const kept: Array<Group> = []
    for (const g of groups) {
      const rest = g.hooks.filter((h) => awhmHookOf(h.command) === null)
      if (rest.length < g.hooks.length) removed.add(event)
      if (rest.length > 0 || g.hooks.length === 0) kept.push(rest.length === g.hooks.length ? g : { ...g, hooks: rest })
    }
    if (kept.length > 0 || groups.length === 0) out[event] = kept
  }
  return { hooks: out, removed }
}

/**
 * Puts awhm's hooks into `settings`: a hook already there for the same `awhm hook …` is replaced where it
 * stands, a missing one is appended as its own group, duplicates go. Idempotent.
 */
export const installHooks = (settings: unknown, entries: ReadonlyArray<AwhmHookEntry>): MergeOutcome => {
  const hooks: Record<string, ReadonlyArray<Group>> = { ...hooksOf(settings) }
  const added: Array<string> = []
  const updated: Array<string> = []
  for (const { event, hook } of entries) {
    const name = awhmHookOf(hook.command)
    const groups = hooks[event] ?? []
    let found = false
    let changed = false
    const next = groups.map((g) => ({
      ...g,
      hooks: g.hooks.flatMap((h) => {
        if (awhmHookOf(h.command) !== name) return [h]
        if (found) {
          changed = true // a duplicate: awhm would run twice
          return []
        }
        found = true
        if (sameHook(h, hook)) return [h]
        changed = true
        return [hook]
      })
    })).filter((g, i) => g.hooks.length > 0 || groups[i]!.hooks.length === 0)
    if (!found) {
      hooks[event] = [...groups, { hooks: [hook] }]
      added.push(event)
    } else if (changed) {
      hooks[event] = next
      updated.push(event)
    }
  }
  const changed = added.length + updated.length > 0
  return { settings: changed ? { ...(settings as Obj), hooks } : (settings as Obj), added, updated, removed: [] }
}

/** Takes every awhm hook out of `settings`, and the groups, events and `hooks` key that only held them. */
export const uninstallHooks = (settings: unknown): MergeOutcome => {
  const before = hooksOf(settings)
  const { hooks, removed } = withoutAwhm(before)
  if (removed.size === 0) return { settings: settings as Obj, added: [], updated: [], removed: [] }
  const { hooks: _old, ...rest } = settings as Obj
  const next = Object.keys(hooks).length > 0 || Object.keys(before).length === 0 ? { ...rest, hooks } : rest
  // Keys keep their places: `hooks` stays where it was.
  const ordered: Obj = {}
  for (const k of Object.keys(settings as Obj)) if (k in next) ordered[k] = next[k]
  return { settings: ordered, added: [], updated: [], removed: [...removed] }
}
