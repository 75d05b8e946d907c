// Draws report.html's charts from window.KBENCH_DATA with uPlot. Every chart
// made is listed in window.KBENCH_CHARTS with the number of points it has,
// so a test (or a reader of the console) can tell an empty chart.
(function () {
  'use strict';
  var charts = window.KBENCH_CHARTS = [];
  var palette = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7b83', '#6e7781', '#fb8500', '#3a0ca3'];
  var HEIGHT = 260;

  function color(i) { return palette[i % palette.length]; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function chartWidth(parent, perRow) {
    var w = (parent.clientWidth || document.body.clientWidth || 1200);
    return Math.max(320, Math.floor((w - 16 * (perRow - 1)) / perRow));
  }

  function countPoints(data) {
    var n = 0;
    for (var s = 1; s < data.length; s++) {
      for (var i = 0; i < data[s].length; i++) {
        if (data[s][i] != null && isFinite(data[s][i])) n++;
      }
    }
    return n;
  }

  // chart adds one uPlot chart to parent and registers it.
  function chart(parent, title, opts, data, perRow) {
    var div = el('div', 'chart');
    parent.appendChild(div);
    opts.title = title;
    opts.width = chartWidth(parent, perRow || 2);
    opts.height = opts.height || HEIGHT;
    var u = new uPlot(opts, data, div);
    charts.push({ title: title, points: countPoints(data), el: div, plot: u });
    return u;
  }

  // shade marks [from, to) on the x axis, drawn under the series.
  function shadePlugin(from, to, label) {
    return {
      hooks: {
        drawClear: function (u) {
          var x0 = u.valToPos(from, 'x', true), x1 = u.valToPos(to, 'x', true);
          var ctx = u.ctx;
          ctx.save();
          ctx.fillStyle = 'rgba(110, 119, 129, 0.14)';
          ctx.fillRect(Math.max(x0, u.bbox.left), u.bbox.top, Math.max(0, Math.min(x1, u.bbox.left + u.bbox.width) - Math.max(x0, u.bbox.left)), u.bbox.height);
          ctx.fillStyle = '#57606a';
          ctx.font = (11 * devicePixelRatio) + 'px system-ui, sans-serif';
          ctx.fillText(label, Math.max(x0, u.bbox.left) + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
          ctx.restore();
        }
      }
    };
  }

  // marksPlugin draws a labelled vertical line at each mark. Labels that
  // would overlap the one before go a row lower (a kill, its election and
  // a restart a few seconds apart), on a white ground over the series.
  function marksPlugin(marks) {
    return {
      hooks: {
        draw: function (u) {
          var ctx = u.ctx, px = devicePixelRatio, rowH = 13 * px, ends = [];
          u.kbenchLabels = []; // where each label went, for the tests
          ctx.save();
          ctx.font = (11 * px) + 'px system-ui, sans-serif';
          ctx.textBaseline = 'top';
          ctx.textAlign = 'left'; // uPlot leaves the last axis' alignment
          marks.slice().sort(function (a, b) { return a.at - b.at; }).forEach(function (m) {
            var x = Math.round(u.valToPos(m.at, 'x', true));
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            ctx.strokeStyle = '#8250df';
            ctx.setLineDash([4 * px, 3 * px]);
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            var w = ctx.measureText(m.label).width + 6 * px;
            // Right of the line, or left of it near the right edge.
            var lx = x + 3 * px + w > u.bbox.left + u.bbox.width ? x - 3 * px - w : x + 3 * px;
            var row = 0;
            while (ends[row] != null && ends[row] > lx) row++;
            ends[row] = lx + w;
            var ly = u.bbox.top + 18 * px + row * rowH;
            u.kbenchLabels.push({ label: m.label, x: lx / px, y: ly / px, w: w / px, h: rowH / px });
            ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
            ctx.fillRect(lx, ly - 1 * px, w, rowH);
            ctx.fillStyle = '#8250df';
            ctx.fillText(m.label, lx + 3 * px, ly);
          });
          ctx.restore();
        }
      }
    };
  }

  function timePlugins(w) {
    var p = [];
    if (w.steady_at != null && w.t.length) p.push(shadePlugin(Math.min(0, w.t[0]), w.steady_at, 'warm-up'));
    if (w.marks && w.marks.length) p.push(marksPlugin(w.marks));
    return p;
  }

  function series(label, i, extra) {
    var s = { label: label, stroke: color(i), width: 1.5, spanGaps: false };
    for (var k in extra) s[k] = extra[k];
    return s;
  }

  // yScale draws a y axis as the Go side decided (axes.go): from 0, or
  // logarithmic for latencies spanning decades.
  function yScale(a) {
    if (a && a.log) return { distr: 3 };
    if (a && a.zero) return { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } };
    return {};
  }
  // positive leaves out what a log axis cannot draw.
  function positive(s) { return s.map(function (v) { return v > 0 ? v : null; }); }

  var timeX = { time: false };
  // timeScale fixes every time chart of a scenario, in every repeat, to
  // the scenario's x range, so they line up one under another.
  function timeScale(sc) {
    if (!sc || !(sc.to > sc.from)) return timeX;
    return { time: false, range: function () { return [sc.from, sc.to]; } };
  }
  var secondsAxis = { label: 'seconds from the first send', values: function (u, vs) { return vs.map(function (v) { return v + ' s'; }); } };

  function drawWorkload(parent, w, sc) {
    var timeX = timeScale(sc);
    var box = el('div', 'workload');
    box.appendChild(el('h4', null, w.name + ' (' + w.type + ')'));
    parent.appendChild(box);
    if (!w.t || w.t.length === 0) {
      box.appendChild(el('p', 'nodata', 'No intervals were recorded for this workload.'));
      return;
    }
    chart(box, 'Throughput', {
      scales: { x: timeX, rec: yScale(w.rate_axis), mb: yScale(w.rate_axis) },
      series: [{ label: 'time (s)' }, series('records/s', 0, { scale: 'rec' }), series('MB/s', 2, { scale: 'mb', dash: [5, 4] })],
      axes: [secondsAxis, { scale: 'rec', label: 'records/s', size: 70 }, { scale: 'mb', side: 1, label: 'MB/s', grid: { show: false } }],
      plugins: timePlugins(w)
    }, [w.t, w.rate, w.mib]);
    var lat, data;
    if (w.p50) {
      lat = [series('p50', 0), series('p99', 1), series('p99.9', 4), series('max', 7, { dash: [4, 3] })];
      data = [w.t, w.p50, w.p99, w.p999, w.max];
    } else {
      lat = [series('mean', 0), series('max', 7, { dash: [4, 3] })];
      data = [w.t, w.avg, w.max];
    }
    var latLog = w.latency_axis && w.latency_axis.log;
    if (latLog) data = [data[0]].concat(data.slice(1).map(positive));
    chart(box, (w.latency_of === 'publish' ? 'Publish' : 'End-to-end') + ' latency (ms' + (latLog ? ', log' : '') + ')', {
      scales: { x: timeX, y: yScale(w.latency_axis) },
      series: [{ label: 'time (s)' }].concat(lat),
      axes: [secondsAxis, { label: latLog ? 'ms (log)' : 'ms', size: 60 }],
      plugins: timePlugins(w)
    }, data);
    if (w.lag && w.lag.length) {
      chart(box, 'Consumer lag (records)', {
        scales: { x: timeX, y: yScale({ zero: true }) },
        series: [{ label: 'time (s)' }, series('lag', 3, { fill: 'rgba(154, 103, 0, 0.12)' })],
        axes: [secondsAxis, { label: 'records', size: 70 }],
        plugins: timePlugins(w)
      }, [w.lag_t, w.lag]);
    }
    if (w.unseen && w.unseen.length) {
      chart(box, 'Acknowledged, not yet read back (records)', {
        scales: { x: timeX, y: yScale({ zero: true }) },
        series: [{ label: 'time (s)' }, series('unseen', 5, { fill: 'rgba(207, 34, 46, 0.10)' })],
        axes: [secondsAxis, { label: 'records', size: 70 }],
        plugins: timePlugins(w)
      }, [w.unseen_t, w.unseen]);
    }
  }

  // drawBrokers draws a repeat's brokers over time on the scenario's
  // clock, under its workloads' throughput: each broker's CPU (cores used)
  // and its request handlers' busy share, a line per broker, marked with
  // the faults.
  function drawBrokers(parent, b, sc) {
    var timeX = timeScale(sc);
    var box = el('div', 'workload');
    box.appendChild(el('h4', null, 'Brokers'));
    parent.appendChild(box);
    var plugins = b.marks && b.marks.length ? [marksPlugin(b.marks)] : [];
    function lines(title, s, unit, y) {
      if (!s || !s.t || !s.t.length) return;
      chart(box, title, {
        scales: { x: timeX, y: y },
        series: [{ label: 'time (s)' }].concat(s.names.map(function (n, i) { return series(n, i); })),
        axes: [secondsAxis, { label: unit, size: 60 }],
        plugins: plugins
      }, [s.t].concat(s.values));
    }
    lines('Broker CPU (cores used)', b.cpu, 'cores', yScale({ zero: true }));
    lines('Request handlers busy (%)', b.busy, '% busy', { range: function () { return [0, 100]; } });
  }

  function drawScenario(parent, sc, idx) {
    var box = el('div', 'scenario');
    var h = el('h3', null, 'Scenario ' + (idx + 1) + ': ' + sc.name);
    box.appendChild(h);
    var body = el('div');
    box.appendChild(body);
    parent.appendChild(box);
    function show(r) {
      // Drop the charts being replaced from the registry.
      for (var i = charts.length - 1; i >= 0; i--) {
        if (body.contains(charts[i].el)) { charts[i].plot.destroy(); charts.splice(i, 1); }
      }
      body.textContent = '';
      var rep = sc.repeats[r];
      if (!rep) { body.appendChild(el('p', 'nodata', 'No repeat ran.')); return; }
      if (rep.status !== 'ok') body.appendChild(el('p', 'nodata', 'Repeat ' + rep.index + ' ended ' + rep.status + '.'));
      (rep.workloads || []).forEach(function (w) { drawWorkload(body, w, sc); });
      if (rep.brokers) drawBrokers(body, rep.brokers, sc);
    }
    if (sc.repeats.length > 1) {
      var sel = el('select');
      sel.setAttribute('aria-label', 'repeat');
      sc.repeats.forEach(function (r, i) {
        var o = el('option', null, 'repeat ' + r.index + (r.status === 'ok' ? '' : ' (' + r.status + ')'));
        o.value = i;
        sel.appendChild(o);
      });
      sel.addEventListener('change', function () { show(+sel.value); });
      h.appendChild(sel);
    }
    show(0);
  }

  function pctLabel(v) {
    if (v >= 4.5) return 'max';
    if (v === 0) return 'p0';
    var p = 100 * (1 - Math.pow(10, -v));
    return 'p' + (+p.toFixed(4));
  }

  function drawDist(parent, title, curves) {
    if (!curves.length) return;
    var x = curves[0].x;
    var data = [x].concat(curves.map(function (c) { return c.y.map(function (v) { return v > 0 ? v : null; }); }));
    var ser = [{ label: 'percentile', value: function (u, v) { return v == null ? '-' : pctLabel(v); } }].concat(curves.map(function (c, i) {
      return series(c.scenario, i, { points: { show: false } });
    }));
    var nines = { label: 'percentile', splits: function () { return [0, 1, 2, 3, 4, 4.5]; }, values: function (u, vs) { return vs.map(pctLabel); } };
    chart(parent, title, {
      scales: { x: { time: false }, y: { distr: 3 } },
      series: ser,
      axes: [nines, { label: 'ms (log)', size: 60 }]
    }, data);
    var tail = [], from = x.findIndex(function (v) { return v >= 2; });
    data.forEach(function (s) { tail.push(s.slice(from)); });
    var nines2 = { label: 'percentile', splits: function () { return [2, 3, 4, 4.5]; }, values: function (u, vs) { return vs.map(pctLabel); } };
    chart(parent, title + ': the tail from p99', {
      scales: { x: { time: false }, y: { distr: 3 } },
      series: ser.map(function (s) { var c = {}; for (var k in s) c[k] = s[k]; return c; }),
      axes: [nines2, { label: 'ms (log)', size: 60 }]
    }, tail);
  }

  // fmtNum shows a figure as the tables do (Go's units.Figure): under 1,
  // 3 significant digits, so 0.0048 MB/s is not 0.00.
  function fmtNum(v) {
    if (v == null) return '-';
    var a = Math.abs(v);
    if (a >= 100) return Math.round(v).toLocaleString('en');
    if (a >= 10) return v.toFixed(1);
    var d = a > 0 && a < 1 ? Math.max(2, 2 - Math.floor(Math.log10(a))) : 2;
    var s = v.toFixed(d);
    while (d > 2 && s.charAt(s.length - 1) === '0') { s = s.slice(0, -1); d--; }
    return s;
  }

  // spreadValue shows a point as its mean and, when repeats differ, the
  // lowest and highest repeat.
  function spreadValue(s) {
    return function (u, v, si, i) {
      if (v == null || i == null) return '-';
      var lo = s.min[i], hi = s.max[i];
      return fmtNum(v) + (lo != null && hi != null && lo !== hi ? ' (' + fmtNum(lo) + '–' + fmtNum(hi) + ')' : '');
    };
  }

  // bandPlugin shades each series' spread, from its lowest to its highest
  // repeat, with a whisker at every point.
  function bandPlugin(series, colorOf) {
    return {
      hooks: {
        drawClear: function (u) {
          var ctx = u.ctx, px = devicePixelRatio;
          ctx.save();
          ctx.beginPath();
          ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
          ctx.clip();
          series.forEach(function (s, k) {
            var c = colorOf(k), pts = [];
            for (var i = 0; i < s.mean.length; i++) {
              if (s.min[i] == null || s.max[i] == null) continue;
              pts.push([u.valToPos(u.data[0][i], 'x', true), u.valToPos(s.min[i], 'y', true), u.valToPos(s.max[i], 'y', true)]);
            }
            if (!pts.length) return;
            ctx.fillStyle = hexAlpha(c, 0.12);
            ctx.beginPath();
            pts.forEach(function (p, n) { n ? ctx.lineTo(p[0], p[2]) : ctx.moveTo(p[0], p[2]); });
            for (var n = pts.length - 1; n >= 0; n--) ctx.lineTo(pts[n][0], pts[n][1]);
            ctx.closePath();
            ctx.fill();
            ctx.strokeStyle = hexAlpha(c, 0.6);
            ctx.lineWidth = px;
            pts.forEach(function (p) {
              ctx.beginPath();
              ctx.moveTo(p[0], p[1]);
              ctx.lineTo(p[0], p[2]);
              ctx.moveTo(p[0] - 3 * px, p[1]);
              ctx.lineTo(p[0] + 3 * px, p[1]);
              ctx.moveTo(p[0] - 3 * px, p[2]);
              ctx.lineTo(p[0] + 3 * px, p[2]);
              ctx.stroke();
            });
          });
          ctx.restore();
        }
      }
    };
  }

  // barsPlugin draws grouped bars: a group per category, a bar per series
  // at its mean, with a whisker from its lowest to its highest repeat.
  function barsPlugin(series, colorOf) {
    return {
      hooks: {
        draw: function (u) {
          var ctx = u.ctx, px = devicePixelRatio, n = series.length;
          var step = u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true);
          var bw = Math.max(2 * px, 0.7 * step / n), base = u.valToPos(0, 'y', true);
          ctx.save();
          series.forEach(function (s, k) {
            for (var i = 0; i < s.mean.length; i++) {
              if (s.mean[i] == null) continue;
              var x0 = u.valToPos(i, 'x', true) - 0.35 * step + k * bw, y = u.valToPos(s.mean[i], 'y', true);
              ctx.fillStyle = hexAlpha(colorOf(k), 0.75);
              ctx.fillRect(x0 + px, y, bw - 2 * px, base - y);
              if (s.min[i] == null || s.max[i] == null || s.min[i] === s.max[i]) continue;
              var xc = x0 + bw / 2, lo = u.valToPos(s.min[i], 'y', true), hi = u.valToPos(s.max[i], 'y', true);
              ctx.strokeStyle = '#1d2330';
              ctx.lineWidth = px;
              ctx.beginPath();
              ctx.moveTo(xc, lo);
              ctx.lineTo(xc, hi);
              ctx.moveTo(xc - 3 * px, lo);
              ctx.lineTo(xc + 3 * px, lo);
              ctx.moveTo(xc - 3 * px, hi);
              ctx.lineTo(xc + 3 * px, hi);
              ctx.stroke();
            }
          });
          ctx.restore();
        }
      }
    };
  }

  // drawMatrix draws each metric against the swept parameter: lines over a
  // numeric parameter (log scale when it spans decades), grouped bars over
  // a categorical one; a series per combination of the other parameters,
  // each with its spread over repeats.
  function drawMatrix(parent, m) {
    var idx = m.labels.map(function (_, i) { return i; });
    var xs = m.numeric ? m.x : idx;
    var label = m.parameter + (m.unit || m.log ? ' (' + [m.unit, m.log ? 'log scale' : ''].filter(Boolean).join(', ') + ')' : '');
    var xLabel = function (v) {
      var i = xs.indexOf(v);
      return i >= 0 ? m.labels[i] : (m.numeric ? fmtNum(v) : '');
    };
    var xAxis = { label: label, values: function (u, vs) { return vs.map(xLabel); } };
    if (!m.numeric || xs.length <= 12) {
      // A tick at each value, each labelled as written (a log axis would
      // label only whole decades).
      xAxis.splits = function () { return xs; };
      xAxis.filter = function (u, splits) { return splits; };
    }
    var xScale = { time: false, range: [-0.5, idx.length - 0.5] };
    if (m.numeric) {
      var lo = xs[0], hi = xs[xs.length - 1];
      xScale = m.log ? { time: false, distr: 3, range: [lo / 1.5, hi * 1.5] }
        : { time: false, range: [lo - Math.max((hi - lo) * 0.05, 0.5), hi + Math.max((hi - lo) * 0.05, 0.5)] };
    }
    m.metrics.forEach(function (mt, mi) {
      // One series keeps the metric's colour; several, one each.
      var colorOf = function (k) { return color(mt.series.length > 1 ? k : mi); };
      var ser = [{ label: m.parameter, value: function (u, v) { return v == null ? '-' : xLabel(v); } }];
      var data = [xs], top = 0, bottom = Infinity;
      mt.series.forEach(function (s, k) {
        var opts = m.numeric ? { width: 2, points: { show: true, size: 7 } }
          : { paths: function () { return null; }, points: { show: false } }; // the bars are drawn by barsPlugin
        opts.value = spreadValue(s);
        var sr = series(s.name || mt.name, 0, opts);
        sr.stroke = colorOf(k);
        ser.push(sr);
        data.push(s.mean);
        s.max.forEach(function (v) { if (v != null && v > top) top = v; });
        s.min.forEach(function (v) { if (v != null && v < bottom) bottom = v; });
      });
      // The readers' theoretical maximum (result.json's ceilings): a dashed
      // line in each series' colour, after the measured ones.
      mt.series.forEach(function (s, k) {
        if (!s.ceiling) return;
        var cr = series((s.name || mt.name) + ' theoretical max', 0, { dash: [8, 5], width: 1.5, points: { show: false } });
        cr.stroke = colorOf(k);
        ser.push(cr);
        data.push(s.ceiling);
        s.ceiling.forEach(function (v) { if (v != null && v > top) top = v; });
      });
      // The y range holds the spread, not the means only.
      // From 0 (mt.axis.zero), or logarithmic for latencies spanning
      // decades (axes.go).
      var ax = mt.axis || {};
      var spread = function (u, lo, hi) {
        var a = Math.min(lo, bottom), b = Math.max(hi, top), pad = (b - a) * 0.08 || Math.abs(b) * 0.1 || 1;
        if (ax.zero) return [0, b + pad];
        return [a >= 0 ? Math.max(0, a - pad) : a - pad, b + pad]; // rates and latencies stay above 0
      };
      var yOf = ax.log ? { distr: 3 } : m.numeric ? { range: spread } : { range: [0, top > 0 ? top * 1.1 : 1] };
      if (ax.log) data = [data[0]].concat(data.slice(1).map(positive));
      chart(parent, mt.name + ' by ' + m.parameter, {
        scales: { x: xScale, y: yOf },
        series: ser,
        axes: [xAxis, { label: mt.unit + (ax.log ? ' (log)' : ''), size: 70 }],
        plugins: [m.numeric ? bandPlugin(mt.series, colorOf) : barsPlugin(mt.series, colorOf)]
      }, data, 2);
    });
  }

  function hexAlpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16 & 255) + ', ' + (n >> 8 & 255) + ', ' + (n & 255) + ', ' + a + ')';
  }

  function inflate(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }

  function draw(d) {
    if (d.matrix && d.matrix.metrics.length) {
      document.getElementById('matrix-section').hidden = false;
      drawMatrix(document.getElementById('matrix'), d.matrix);
    }
    if (d.publish.length || d.end_to_end.length) {
      document.getElementById('dist-section').hidden = false;
      var dist = document.getElementById('dist');
      drawDist(dist, 'Publish latency (send to acknowledgement)', d.publish);
      drawDist(dist, 'End-to-end latency (send to consume)', d.end_to_end);
    }
    var s = document.getElementById('series');
    (d.scenarios || []).forEach(function (sc, i) { drawScenario(s, sc, i); });
    document.body.setAttribute('data-ready', 'true');
  }

  var loading = window.KBENCH_COMPRESSED ? inflate(window.KBENCH_DATA) : Promise.resolve(window.KBENCH_DATA);
  loading.then(draw).catch(function (e) {
    console.error('kbench report: ' + (e && e.stack || e));
    var p = el('p', 'warnings', 'The charts could not be drawn: ' + e);
    document.body.insertBefore(p, document.body.firstChild);
    document.body.setAttribute('data-ready', 'error');
  });
})();
