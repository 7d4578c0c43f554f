import { PG_ENV, startPgCluster } from "./pgCluster.js"

/**
 * Starts one private PostgreSQL cluster for the whole test run and hands its URLs to the workers through
 * AWHM_TEST_POSTGRES; stops it and removes its folder at the end. An AWHM_TEST_POSTGRES already set (the
 * same JSON, for a server started elsewhere) is used as it is.
 */
export default async function setup(): Promise<() => void> {
  if (process.env[PG_ENV] !== undefined) return () => {}
  const cluster = await startPgCluster()
  process.env[PG_ENV] = JSON.stringify({ urls: cluster.urls, superuserUrl: cluster.superuserUrl })
  const stop = () => cluster.stop()
  process.once("exit", stop)
  return () => {
    process.off("exit", stop)
    stop()
  }
}
