#!/usr/bin/env node
// Times ONNX Runtime (the npm package onnxruntime-node, whose CPU library
// ships inside the package) on benchmark models exported from their
// PyTorch headers by bench/export_onnx.py, on the same .npy inputs Attune
// gets. Prints JSON: {"NAME": {"min_ms": .., "median_ms": ..}}.
//
//   compare_ort.js --threads N --repetitions R [--seconds S] NAME=MODEL.onnx:case_dir ...
//
// Each case: 2 warm-up runs, then at least R timed runs and, with
// --seconds, more until the timed runs add up to S seconds (as long as
// attune-bench times Attune; the minimum is over single runs on both sides).
//
// ORT_NODE names the package directory (default: resolved from bench/ort).
'use strict';
const fs = require('fs');
const path = require('path');

function loadNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY')
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major >= 2 ? buf.readUInt32LE(8) : buf.readUInt16LE(8);
  const start = (major >= 2 ? 12 : 10);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1]
                    .split(',').map(s => s.trim()).filter(s => s).map(Number);
  if (/'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: Fortran order is not supported`);
  const data = buf.subarray(start + headerLen);
  const copy = (Type) => new Type(data.buffer.slice(
      data.byteOffset, data.byteOffset + data.byteLength));
  if (descr === '<f4') return {type: 'float32', data: copy(Float32Array), shape};
  if (descr === '<i8') return {type: 'int64', data: copy(BigInt64Array), shape};
  throw new Error(`${file}: dtype ${descr} is not supported`);
}

async function main() {
  const args = process.argv.slice(2);
  let threads = 1, repetitions = 10, seconds = 0;
  const cases = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--threads') threads = Number(args[++i]);
    else if (args[i] === '--repetitions') repetitions = Number(args[++i]);
    else if (args[i] === '--seconds') seconds = Number(args[++i]);
    else cases.push(args[i]);
  }
  const ort = require(process.env.ORT_NODE ||
                      path.join(__dirname, 'ort', 'node_modules', 'onnxruntime-node'));
  const results = {};
  for (const spec of cases) {
    const eq = spec.indexOf('=');
    const name = spec.slice(0, eq);
    const [model, caseDir] = spec.slice(eq + 1).split(':');
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: threads, interOpNumThreads: 1,
      executionMode: 'sequential', graphOptimizationLevel: 'all'});
    const feeds = {};
    for (const input of session.inputNames) {
      const t = loadNpy(path.join(caseDir, `${input}.npy`));
      feeds[input] = new ort.Tensor(t.type, t.data, t.shape);
    }
    const times = [];
    let total = 0;
    for (let r = 0; r < repetitions + 2 || total < seconds * 1e3; ++r) {
      const start = process.hrtime.bigint();
      await session.run(feeds);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r >= 2) {
        times.push(ms);
        total += ms;
      }
    }
    times.sort((a, b) => a - b);
    results[name] = {min_ms: times[0], median_ms: times[times.length >> 1]};
  }
  process.stdout.write(JSON.stringify(results, null, 1) + '\n');
}

main().catch(e => { console.error(`compare_ort.js: ${e.message}`); process.exit(1); });
