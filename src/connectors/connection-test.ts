import type { ConnectionTestResult } from "./connector";
import { ConnectorError } from "./connector-error";

/**
 * Runs a connector's test and turns every failure into `connected: false`, so that test()
 * never throws. ConnectorError messages are already fit to show; anything else is a bug
 * here, logged (without secrets) and answered with a generic message.
 */
export async function runConnectionTest(
  attempt: () => Promise<ConnectionTestResult>,
  scrub: (text: string) => string,
): Promise<ConnectionTestResult> {
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof ConnectorError) return { connected: false, message: error.message };
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(JSON.stringify({ event: "connector_test_failed", detail: scrub(detail) }));
    return { connected: false, message: "The connection test failed with an unexpected error." };
  }
}
