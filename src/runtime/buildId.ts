declare const __AWHM_BUILD_ID__: string | undefined

/**
 * The id of this build, set by scripts/build.mjs (a hash of the sources): a hook only talks to a hook
 * server of its own build. Null when running from sources, where there is no hook server.
 */
export const buildId: string | null = typeof __AWHM_BUILD_ID__ === "string" ? __AWHM_BUILD_ID__ : null
