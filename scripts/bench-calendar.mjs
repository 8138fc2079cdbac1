// CPU time of the periods route's own work for 10 years of DAY periods (3,650): the period
// arithmetic, then the JSON the route sends. Measured in Node on the same module the Worker uses
// (bundled on the fly with esbuild), since workerd does not let a Worker time its own CPU.
import { importTypeScriptOnce } from "./import-typescript.mjs";

export async function measureCalendarCpu() {
  const { listPeriods } = await importTypeScriptOnce(`export * from "./src/domain/calendar/index.ts";`);
  const nrf = { type: "FISCAL_445", fiscal445: { yearEndWeekDay: "SATURDAY", yearEndsInLastWeek: false, yearEndIsoMonth: "JANUARY", quarterType: "QUARTER_454_WEEKS", leapWeekInMonth: 12 } };
  const run = () => listPeriods(nrf, "2015-01-01", "2024-12-28", "DAY");
  const once = run();
  if (!once.ok || once.periods.length !== 3650) throw new Error("benchmark range does not give 3,650 DAY periods");
  for (let i = 0; i < 50; i++) JSON.stringify({ content: run().periods });
  const iterations = 300;
  const cpu = (work) => {
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / iterations / 1000;
  };
  return { periods: once.periods.length, listMs: cpu(run), withJsonMs: cpu(() => JSON.stringify({ content: run().periods })), iterations };
}
