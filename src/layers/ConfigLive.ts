import * as fs from "node:fs"
import { Cause, ConfigError, ConfigProvider, Effect, Either, Layer } from "effect"
import { awhmConfig, type AwhmConfigShape } from "../domain/Config.js"
import { ConfigurationError, StorageError } from "../domain/errors.js"
import { readFileNoFollow } from "../store/noFollow.js"
import { dataPaths, resolveDataDir } from "../store/paths.js"
import { checkDataDir } from "../store/privateDir.js"
import { sequenceRatio } from "../text/sequenceMatcher.js"
import { AppConfig } from "../services/AppConfig.js"

/** Environment variables that are switches of their own, not configuration parameters. */
const NOT_PARAMETERS = new Set(["data_dir", "hook_active", "hook_server", "mock_embeddings", "stage2", "scope", "bench_full"])

const envParameters = (env: NodeJS.ProcessEnv): Map<string, string> => {
  const map = new Map<string, string>()
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith("AWHM_") || value === undefined) continue
    const name = key.slice(5).toLowerCase()
    if (!NOT_PARAMETERS.has(name)) map.set(name, value)
  }
  // The reference's switches, kept for its users' scripts.
  if (/^(1|true)$/i.test(env.AWHM_MOCK_EMBEDDINGS ?? "") && !map.has("embedder")) map.set("embedder", "mock")
  if (/^(1|true)$/i.test(env.AWHM_STAGE2 ?? "") && !map.has("stage2_enabled")) map.set("stage2_enabled", "true")
  if (env.AWHM_SCOPE !== undefined && !map.has("scope_mode")) map.set("scope_mode", env.AWHM_SCOPE)
  return map
}

let known: ReadonlySet<string> | null = null

/** Every parameter name the configuration reads, found by asking the configuration itself (once a process). */
const knownNames = (): ReadonlySet<string> => {
  if (known !== null) return known
  const names = new Set<string>()
  const recording = ConfigProvider.fromMap(new Map()).pipe(
    ConfigProvider.mapInputPath((name) => {
      names.add(name)
      return name
    })
  )
  Effect.runSync(Effect.ignore(Effect.withConfigProvider(awhmConfig, recording)))
  known = names
  return names
}

/** The warning for a config.json key that no parameter has (a typo would otherwise go unnoticed). */
const unknownKeyWarning = (file: string, key: string, known: ReadonlySet<string>): string => {
  let best: string | null = null
  let bestRatio = 0.6 // difflib's get_close_matches cutoff
  for (const name of known) {
    const ratio = sequenceRatio(key.toLowerCase(), name)
    if (ratio > bestRatio) [best, bestRatio] = [name, ratio]
  }
  return `${file}: unknown key "${key.slice(0, 80)}" is ignored${best === null ? "" : ` (did you mean "${best}"?)`}`
}

/** ner_labels from the environment: a comma-separated list, or a JSON array of strings. */
const nerLabelsFromEnv = (value: string): Either.Either<string, string> => {
  if (!value.trim().startsWith("[")) return Either.right(value)
  try {
    const parsed: unknown = JSON.parse(value)
    if (Array.isArray(parsed) && parsed.every((v) => typeof v === "string")) return Either.right(parsed.join(","))
  } catch {
    // reported below
  }
  return Either.left("invalid configuration: AWHM_NER_LABELS must be a comma-separated list or a JSON array of labels such as PERSON,ORG")
}

const describeConfigError = (error: ConfigError.ConfigError): string => {
  // Prefer the invalid value over "missing in a higher-precedence source".
  const find = (e: ConfigError.ConfigError, op: string): string | null => {
    switch (e._op) {
      case "And":
      case "Or":
        return find(e.left, op) ?? find(e.right, op)
      default:
        return e._op === op || op === "*" ? `${e.path.join(".") || "configuration"}: ${e.message}` : null
    }
  }
  return `invalid configuration: ${find(error, "InvalidData") ?? find(error, "*")}`
}

/** Configurations resolved in this process, by their inputs (flags, AWHM_* parameters, config.json's values). */
const resolvedConfigs = new Map<string, Omit<AwhmConfigShape, "dataDir">>()
const RESOLVED_MAX = 16

/**
 * Resolves the configuration: flags > AWHM_<NAME> env > <data-dir>/config.json > defaults.
 * `flags` uses the parameters' snake_case names.
 */
export const loadConfig = (
  flags: Readonly<Record<string, string>> = {},
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<AwhmConfigShape, ConfigurationError | StorageError> =>
  Effect.gen(function* () {
    if ((flags.data_dir ?? env.AWHM_DATA_DIR) === "") {
      return yield* new ConfigurationError({ message: "invalid configuration: the data dir must not be empty (AWHM_DATA_DIR or --data-dir)" })
    }
    const dataDir = resolveDataDir(flags.data_dir, env)
    // Before anything in it is read: a data dir someone else can write in could hold any configuration.
    yield* Effect.try({
      try: () => checkDataDir(dataDir),
      catch: (e) => new StorageError({ operation: "check", path: dataDir, message: e instanceof Error ? e.message : String(e) })
    })
    const configFile = dataPaths(dataDir).configJson
    const fileConfig = yield* Effect.try({
      try: () => (fs.existsSync(configFile) ? (JSON.parse(readFileNoFollow(configFile).toString("utf8")) as unknown) : {}),
      catch: (e) => new ConfigurationError({ message: `invalid configuration: ${configFile} is not valid JSON (${e instanceof Error ? e.message : String(e)})` })
    })
    if (typeof fileConfig !== "object" || fileConfig === null || Array.isArray(fileConfig)) {
      return yield* new ConfigurationError({ message: `invalid configuration: ${configFile} must hold a JSON object` })
    }
    const jsonValues: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(fileConfig)) if (v !== null) jsonValues[k] = v
    const keys = Object.keys(fileConfig)
    if (keys.length > 0) {
      const known = knownNames()
      for (const key of keys) if (!known.has(key)) yield* Effect.logWarning(unknownKeyWarning(configFile, key, known))
    }
    const fromEnv = envParameters(env)
    const labels = fromEnv.get("ner_labels")
    if (labels !== undefined) {
      const parsed = nerLabelsFromEnv(labels)
      if (Either.isLeft(parsed)) return yield* new ConfigurationError({ message: parsed.left })
      fromEnv.set("ner_labels", parsed.right)
    }
    const flagValues = Object.entries(flags).filter(([k]) => k !== "data_dir")
    // The same inputs resolve to the same values: a long-lived process (the hook server, per prompt) skips
    // Effect's config resolution, ~4 ms of CPU each time.
    const key = JSON.stringify([flagValues, [...fromEnv], jsonValues])
    const known = resolvedConfigs.get(key)
    if (known !== undefined) return { ...known, dataDir }
    const provider = ConfigProvider.fromMap(new Map(flagValues)).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromMap(fromEnv)),
      ConfigProvider.orElse(() => ConfigProvider.fromJson(jsonValues))
    )
    const values = yield* Effect.withConfigProvider(awhmConfig, provider).pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause)
        return failure._tag === "Some" && ConfigError.isConfigError(failure.value)
          ? new ConfigurationError({ message: describeConfigError(failure.value) })
          : new ConfigurationError({ message: `invalid configuration: ${Cause.pretty(cause).split("\n")[0]}` })
      })
    )
    if (values.nerLabels.length === 0 || !values.nerLabels.every((l) => /^[A-Z][A-Z_]*$/.test(l))) {
      return yield* new ConfigurationError({ message: "invalid configuration: ner_labels: must be entity labels such as PERSON,ORG (letters and _)" })
    }
    if (resolvedConfigs.size >= RESOLVED_MAX) resolvedConfigs.clear()
    resolvedConfigs.set(key, values)
    return { ...values, dataDir }
  })

/** AppConfig from flags, environment and config.json. */
export const ConfigLive = (flags: Readonly<Record<string, string>> = {}) => Layer.effect(AppConfig, loadConfig(flags))

/** AppConfig with defaults and overrides, for tests and embedding apps. */
export const ConfigFromValues = (dataDir: string, overrides: Readonly<Record<string, string>> = {}) =>
  Layer.effect(AppConfig, loadConfig({ ...overrides, data_dir: dataDir }, {}))
