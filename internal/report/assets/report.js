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

  // marksPlugin draws a labelled vertical line at each mark.
  function marksPlugin(marks) {
    return {
      hooks: {
        draw: function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#8250df';
          ctx.fillStyle = '#8250df';
          ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
          ctx.font = (11 * devicePixelRatio) + 'px system-ui, sans-serif';
          marks.forEach(function (m) {
            var x = Math.round(u.valToPos(m.at, 'x', true));
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillText(m.label, x + 3 * devicePixelRatio, u.bbox.top + 24 * devicePixelRatio);
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

  var timeX = { time: false };
  // timeScale fixes a repeat's time charts to the same x range, so they
  // line up one under another.
  function timeScale(rep) {
    if (!rep || !(rep.seconds > 0)) return timeX;
    return { time: false, range: function (u, lo, hi) { return [0, Math.max(rep.seconds, hi)]; } };
  }
  var secondsAxis = { label: 'seconds', values: function (u, vs) { return vs.map(function (v) { return v + ' s'; }); } };

  function drawWorkload(parent, w, rep) {
    var timeX = timeScale(rep);
    var box = el('div', 'workload');
    box.appendChild(el('h4', null, w.name + ' (' + w.type + ')'));
    parent.appendChild(box);
    if (!w.t || w.t.length === 0) {
      box.appendChild(el('p', 'nodata', 'No intervals were recorded for this workload.'));
      return;
    }
    chart(box, 'Throughput', {
      scales: { x: timeX, rec: {}, mb: {} },
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
    chart(box, (w.latency_of === 'publish' ? 'Publish' : 'End-to-end') + ' latency (ms)', {
      scales: { x: timeX },
      series: [{ label: 'time (s)' }].concat(lat),
      axes: [secondsAxis, { label: 'ms', size: 60 }],
      plugins: timePlugins(w)
    }, data);
    if (w.lag && w.lag.length) {
      chart(box, 'Consumer lag (records)', {
        scales: { x: timeX },
        series: [{ label: 'time (s)' }, series('lag', 3, { fill: 'rgba(154, 103, 0, 0.12)' })],
        axes: [secondsAxis, { label: 'records', size: 70 }],
        plugins: timePlugins(w)
      }, [w.lag_t, w.lag]);
    }
    if (w.unseen && w.unseen.length) {
      chart(box, 'Acknowledged, not yet read back (records)', {
        scales: { x: timeX },
        series: [{ label: 'time (s)' }, series('unseen', 5, { fill: 'rgba(207, 34, 46, 0.10)' })],
        axes: [secondsAxis, { label: 'records', size: 70 }],
        plugins: timePlugins(w)
      }, [w.unseen_t, w.unseen]);
    }
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
      (rep.workloads || []).forEach(function (w) { drawWorkload(body, w, rep); });
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

  function drawMatrix(parent, m) {
    var idx = m.labels.map(function (_, i) { return i; });
    var catAxis = {
      label: m.parameter,
      splits: function () { return idx; },
      values: function (u, vs) { return vs.map(function (v) { return m.labels[v] != null ? m.labels[v] : ''; }); }
    };
    m.metrics.forEach(function (mt, mi) {
      var ser = [{ label: m.parameter, value: function (u, v) { return v == null ? '-' : m.labels[v]; } }];
      var data = [idx], bands = [];
      mt.series.forEach(function (s, gi) {
        var ci = mt.series.length > 1 ? gi : mi, name = s.name ? s.name + ': ' : '';
        var c = color(ci);
        ser.push(series(name + 'mean', ci, { width: 2, points: { show: true, size: 7 } }));
        ser.push(series(name + 'highest repeat', ci, { width: 1, dash: [3, 3], points: { show: false } }));
        ser.push(series(name + 'lowest repeat', ci, { width: 1, dash: [3, 3], points: { show: false } }));
        data.push(s.mean, s.max, s.min);
        var n = data.length;
        bands.push({ series: [n - 2, n - 1], fill: hexAlpha(c, 0.12) });
      });
      chart(parent, mt.name + ' by ' + m.parameter, {
        scales: { x: { time: false, range: [-0.5, idx.length - 0.5] } },
        series: ser,
        bands: bands,
        axes: [catAxis, { label: mt.unit, size: 70 }]
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
