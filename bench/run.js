#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [-- --only 1,3]`: runs every scenario in one
 * process, prints a markdown table headed by the machine info, and writes
 * bench/results.json. A scenario whose feature is not in this build appears as
 * "not measured" with the reason; a target that does not hold stays in the
 * table as "no".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import dispatch from './scenarios/dispatch.js';
import processTier from './scenarios/process-tier.js';
import definitions from './scenarios/definitions.js';
import startup from './scenarios/startup.js';
import throughput from './scenarios/throughput.js';
import executeCode from './scenarios/execute-code.js';
import mcp from './scenarios/mcp.js';
import embedding from './scenarios/embedding.js';
import definitionsCurve from './scenarios/definitions-curve.js';
import load from './scenarios/load.js';
import memory from './scenarios/memory.js';
import soak from './scenarios/soak.js';
import startup100 from './scenarios/startup-100.js';
import toolSearch from './scenarios/tool-search.js';
import mcpServers from './scenarios/mcp-servers.js';
import mcpListStorm from './scenarios/mcp-list-storm.js';
import serveStart from './scenarios/serve-start.js';
import serveHttp from './scenarios/serve-http.js';
import identity from './scenarios/identity.js';
import webConsole from './scenarios/console.js';
import toolSearchReal from './scenarios/tool-search-real.js';

const SCENARIOS = [
  dispatch,
  processTier,
  definitions,
  startup,
  throughput,
  executeCode,
  mcp,
  embedding,
  definitionsCurve,
  load,
  memory,
  soak,
  startup100,
  toolSearch,
  mcpServers,
  mcpListStorm,
  serveStart,
  serveHttp,
  identity,
  webConsole,
  toolSearchReal,
];
const RESULTS = new URL('./results.json', import.meta.url);

function machine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    date: new Date().toISOString(),
  };
}

function formatValue(value, unit = 'ms') {
  if (!Number.isFinite(value)) return '—';
  if (unit === 'score') return value.toFixed(3);
  if (unit === 'chars') return `${Math.round(value)} chars`;
  if (unit !== 'ms') return `${value.toFixed(1)} ${unit}`;
  if (value < 0.01) return `${(value * 1000).toFixed(2)} µs`;
  if (value < 1) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 1000) return `${value.toFixed(2)} ms`;
  return `${(value / 1000).toFixed(2)} s`;
}

function holds(row) {
  const { target } = row;
  if (row.notMeasured) return null;
  if (target?.noErrors && row.errors) return false;
  if (!target || (target.max === undefined && target.min === undefined)) return target?.noErrors ? true : null;
  return target.max !== undefined ? row.ratio <= target.max : row.ratio >= target.min;
}

function tableLine(row) {
  if (row.notMeasured)
    return (
      `| ${row.scenario} | ${row.name} | — | — | — | — | ${row.target?.text ?? ''} | not measured: ` +
      `${row.notMeasured} |`
    );
  const unit = row.unit ?? 'ms';
  const ratioText = row.ratioText ?? `${row.ratio < 0.1 ? row.ratio.toFixed(4) : row.ratio.toFixed(2)}×`;
  const verdict = row.holds === null ? '—' : row.holds ? 'yes' : '**no**';
  return (
    `| ${row.scenario} | ${row.name} | ${formatValue(row.measured.median, unit)} | ` +
    `${formatValue(row.measured.p99, unit)} | ${row.baseline.label}: ${formatValue(row.baseline.median, unit)} ` +
    `(p99 ${formatValue(row.baseline.p99, unit)}) | ${ratioText} | ${row.target?.text ?? ''} | ${verdict} |`
  );
}

/** The markdown report: machine info, then one line per row. */
function renderTable(report) {
  const m = report.machine;
  return [
    `**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}, load average ` +
      `${m.loadAverage.join(' / ')} at start` +
      `${m.loadAverageAtEnd ? `, ${m.loadAverageAtEnd.join(' / ')} at end` : ''}, ${m.date}` +
      `${report.quick ? ' (--quick)' : ''}`,
    '',
    '| # | scenario | median | p99 | baseline, same run (median) | ratio | target | holds |',
    '|---|---|---|---|---|---|---|---|',
    ...report.rows.map(tableLine),
    '',
    ...report.rows.filter((r) => r.note).map((r) => `- ${r.scenario}, ${r.name}: ${r.note}`),
  ].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  const only = values.only?.split(',').map((s) => s.trim());
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'toolshed-bench-'));
  const report = { machine: machine(), quick: values.quick, rows: [] };
  const started = performance.now();
  let failed = false;
  try {
    for (const scenario of SCENARIOS) {
      if (only && !only.includes(scenario.id)) continue;
      const t0 = performance.now();
      process.stderr.write(`bench: scenario ${scenario.id} (${scenario.title})… `);
      try {
        const dir = mkdtempSync(path.join(tmp, `s${scenario.id}-`));
        for (const row of await scenario.run({ tmp: dir, quick: values.quick }))
          report.rows.push({ ...row, holds: holds(row) });
      } catch (error) {
        failed = true;
        report.rows.push({
          scenario: scenario.id,
          name: scenario.title,
          notMeasured: `the scenario failed: ${error?.stack ?? error}`.split('\n')[0],
          holds: null,
        });
        process.stderr.write(`\n${error?.stack ?? error}\n`);
      }
      process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  report.durationS = Math.round((performance.now() - started) / 100) / 10;
  report.machine.loadAverageAtEnd = os.loadavg().map((n) => Math.round(n * 100) / 100);
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(renderTable(report));
  console.log(`\n(${report.durationS} s; results in bench/results.json)`);
  if (failed) process.exitCode = 1;
}

await main();
