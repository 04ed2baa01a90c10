// spark-viewer's renderer: canvas 2D, painter's algorithm, no library. The page's data is the
// JSON of <script id="data">: body poses per frame (position, quaternion w x y z), triangles per
// visual in its body's frame. URL hash or query: t=SECONDS, paused, yaw=, pitch=, zoom=.
(function () {
  "use strict";
  window.addEventListener("error", function (e) {
    console.log("spark-viewer: error " + e.message);
  });
  var D = JSON.parse(document.getElementById("data").textContent);
  var view = document.getElementById("view");
  var g = view.getContext("2d");
  var play = document.getElementById("play");
  var scrub = document.getElementById("scrub");
  var label = document.getElementById("time");
  var speedSel = document.getElementById("speed");
  var plot = document.getElementById("plot");
  var pg = plot.getContext("2d");
  document.title = D.title;

  var args = {};
  (location.hash.slice(1) + "&" + location.search.slice(1)).split("&").forEach(function (kv) {
    if (!kv) return;
    var p = kv.split("=");
    args[decodeURIComponent(p[0])] = p.length > 1 ? decodeURIComponent(p[1]) : "";
  });
  var t0 = D.times[0], t1 = D.times[D.times.length - 1];
  var num = function (k, d) { var x = parseFloat(args[k]); return isFinite(x) ? x : d; };
  var t = Math.min(Math.max(num("t", t0), t0), t1);
  var playing = !("paused" in args) && t1 > t0;
  var yaw = num("yaw", D.view[0]), pitch = num("pitch", D.view[1]), zoom = num("zoom", 1);
  var target = D.center.slice();
  var fov = 0.8;

  // Triangles per visual, as typed arrays.
  var visuals = D.visuals.map(function (v) {
    return { b: v.b, c: v.c, p: v.p || 0, v: new Float64Array(v.v), i: new Uint32Array(v.i) };
  });
  var ntri = visuals.reduce(function (n, v) { return n + v.i.length / 3; }, 0);
  var depth = new Float64Array(ntri), order = new Uint32Array(ntri);
  var shade = new Float64Array(ntri), owner = new Uint32Array(ntri);
  var tri = new Float64Array(ntri * 6);

  function frameAt(time) {
    // The last frame at or before `time`, and the fraction to the next.
    var lo = 0, hi = D.times.length - 1;
    if (time <= D.times[0]) return [0, 0];
    if (time >= D.times[hi]) return [hi, 0];
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (D.times[mid] <= time) lo = mid; else hi = mid;
    }
    return [lo, (time - D.times[lo]) / (D.times[lo + 1] - D.times[lo])];
  }

  function poses(time) {
    var f = frameAt(time), a = D.frames[f[0]], b = D.frames[Math.min(f[0] + 1, D.frames.length - 1)];
    var s = f[1], out = [];
    for (var k = 0; k < D.bodies; k++) {
      var o = 7 * k, p = [], q = [];
      for (var i = 0; i < 3; i++) p.push(a[o + i] + s * (b[o + i] - a[o + i]));
      var dot = 0;
      for (i = 0; i < 4; i++) dot += a[o + 3 + i] * b[o + 3 + i];
      var sg = dot < 0 ? -1 : 1, n = 0;
      for (i = 0; i < 4; i++) { q.push(a[o + 3 + i] + s * (sg * b[o + 3 + i] - a[o + 3 + i])); n += q[i] * q[i]; }
      n = Math.sqrt(n);
      var w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
      out.push([p, [
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]);
    }
    return out;
  }

  function resize() {
    var r = window.devicePixelRatio || 1;
    view.width = Math.max(1, Math.round(view.clientWidth * r));
    view.height = Math.max(1, Math.round(view.clientHeight * r));
  }

  function draw() {
    var W = view.width, H = view.height;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = "#f4f5f7";
    g.fillRect(0, 0, W, H);
    var dist = zoom * D.radius / Math.tan(fov / 2) * 1.25;
    var cp = Math.cos(pitch), sp = Math.sin(pitch), cy = Math.cos(yaw), sy_ = Math.sin(yaw);
    var eye = [target[0] + dist * cp * cy, target[1] + dist * cp * sy_, target[2] + dist * sp];
    var f = [-cp * cy, -cp * sy_, -sp];
    var r = [f[1], -f[0], 0], rn = Math.hypot(r[0], r[1]) || 1;
    r = [r[0] / rn, r[1] / rn, 0];
    var u = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]];
    var focal = 0.5 * Math.min(W, H) / Math.tan(fov / 2);
    var light = [0.4 * r[0] + 0.7 * u[0] - 0.6 * f[0], 0.4 * r[1] + 0.7 * u[1] - 0.6 * f[1], 0.4 * r[2] + 0.7 * u[2] - 0.6 * f[2]];
    var ln = Math.hypot(light[0], light[1], light[2]);
    light = light.map(function (x) { return x / ln; });
    var near = 1e-3 * dist;
    function project(p, out, o) {
      var d0 = p[0] - eye[0], d1 = p[1] - eye[1], d2 = p[2] - eye[2];
      var z = d0 * f[0] + d1 * f[1] + d2 * f[2];
      out[o] = W / 2 + focal * (d0 * r[0] + d1 * r[1] + d2 * r[2]) / z;
      out[o + 1] = H / 2 - focal * (d0 * u[0] + d1 * u[1] + d2 * u[2]) / z;
      return z;
    }
    // A faint grid on the ground below the mechanism.
    g.strokeStyle = "#dfe2e8";
    g.lineWidth = 1;
    var step = Math.pow(10, Math.floor(Math.log10(D.radius / 2))), n = Math.ceil(1.5 * D.radius / step), gz = D.ground;
    var cxg = Math.round(target[0] / step) * step, cyg = Math.round(target[1] / step) * step;
    var a = [0, 0], b = [0, 0];
    for (var k = -n; k <= n; k++) {
      var za = project([cxg + k * step, cyg - n * step, gz], a, 0), zb = project([cxg + k * step, cyg + n * step, gz], b, 0);
      if (za > near && zb > near) { g.beginPath(); g.moveTo(a[0], a[1]); g.lineTo(b[0], b[1]); g.stroke(); }
      za = project([cxg - n * step, cyg + k * step, gz], a, 0); zb = project([cxg + n * step, cyg + k * step, gz], b, 0);
      if (za > near && zb > near) { g.beginPath(); g.moveTo(a[0], a[1]); g.lineTo(b[0], b[1]); g.stroke(); }
    }
    var P = poses(t), m = 0, w = [0, 0, 0], pt = new Float64Array(2);
    for (var vi = 0; vi < visuals.length; vi++) {
      var v = visuals[vi], pose = v.b >= 0 ? P[v.b] : null, nv = v.v.length / 3;
      var wx = new Float64Array(nv * 3), sc = new Float64Array(nv * 2), zz = new Float64Array(nv);
      for (var j = 0; j < nv; j++) {
        var x = v.v[3 * j], y = v.v[3 * j + 1], z = v.v[3 * j + 2];
        if (pose) {
          var R = pose[1], o = pose[0];
          w[0] = R[0] * x + R[1] * y + R[2] * z + o[0];
          w[1] = R[3] * x + R[4] * y + R[5] * z + o[1];
          w[2] = R[6] * x + R[7] * y + R[8] * z + o[2];
        } else { w[0] = x; w[1] = y; w[2] = z; }
        wx[3 * j] = w[0]; wx[3 * j + 1] = w[1]; wx[3 * j + 2] = w[2];
        zz[j] = project(w, pt, 0);
        sc[2 * j] = pt[0]; sc[2 * j + 1] = pt[1];
      }
      for (j = 0; j < v.i.length; j += 3) {
        var i0 = v.i[j], i1 = v.i[j + 1], i2 = v.i[j + 2];
        if (zz[i0] < near || zz[i1] < near || zz[i2] < near) continue;
        var e1 = [wx[3 * i1] - wx[3 * i0], wx[3 * i1 + 1] - wx[3 * i0 + 1], wx[3 * i1 + 2] - wx[3 * i0 + 2]];
        var e2 = [wx[3 * i2] - wx[3 * i0], wx[3 * i2 + 1] - wx[3 * i0 + 1], wx[3 * i2 + 2] - wx[3 * i0 + 2]];
        var nx = e1[1] * e2[2] - e1[2] * e2[1], ny = e1[2] * e2[0] - e1[0] * e2[2], nz = e1[0] * e2[1] - e1[1] * e2[0];
        var nn = Math.hypot(nx, ny, nz);
        if (nn === 0) continue;
        shade[m] = 0.35 + 0.65 * Math.abs((nx * light[0] + ny * light[1] + nz * light[2]) / nn);
        depth[m] = zz[i0] + zz[i1] + zz[i2];
        owner[m] = vi;
        tri[6 * m] = sc[2 * i0]; tri[6 * m + 1] = sc[2 * i0 + 1];
        tri[6 * m + 2] = sc[2 * i1]; tri[6 * m + 3] = sc[2 * i1 + 1];
        tri[6 * m + 4] = sc[2 * i2]; tri[6 * m + 5] = sc[2 * i2 + 1];
        order[m] = m;
        m++;
      }
    }
    // Planes (floors) first, then everything else far to near.
    var idx = Array.prototype.slice.call(order.subarray(0, m));
    idx.sort(function (p, q) {
      var fp = visuals[owner[p]].p, fq = visuals[owner[q]].p;
      return fp !== fq ? fq - fp : depth[q] - depth[p];
    });
    g.lineJoin = "round";
    g.lineWidth = 0.6;
    for (k = 0; k < idx.length; k++) {
      var ti = idx[k], c = visuals[owner[ti]].c, s = shade[ti];
      var col = "rgba(" + Math.round(255 * c[0] * s) + "," + Math.round(255 * c[1] * s) + "," + Math.round(255 * c[2] * s) + "," + c[3] + ")";
      g.fillStyle = col;
      g.strokeStyle = col;
      g.beginPath();
      g.moveTo(tri[6 * ti], tri[6 * ti + 1]);
      g.lineTo(tri[6 * ti + 2], tri[6 * ti + 3]);
      g.lineTo(tri[6 * ti + 4], tri[6 * ti + 5]);
      g.closePath();
      g.fill();
      if (c[3] >= 1) g.stroke();
    }
    label.textContent = "t = " + t.toFixed(3) + " s";
    if (t1 > t0) scrub.value = String(Math.round(1000 * (t - t0) / (t1 - t0)));
    drawPlot();
    return m;
  }

  function drawPlot() {
    var W = plot.width, H = plot.height;
    pg.clearRect(0, 0, W, H);
    if (!D.series.length) { plot.style.display = "none"; return; }
    var colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    D.series.forEach(function (s, k) {
      var lo = Infinity, hi = -Infinity;
      s.y.forEach(function (y) { lo = Math.min(lo, y); hi = Math.max(hi, y); });
      if (hi === lo) { hi = lo + 1; }
      pg.strokeStyle = colors[k % colors.length];
      pg.beginPath();
      s.t.forEach(function (x, i) {
        var px = W * (x - t0) / ((t1 - t0) || 1), py = H - 14 - (H - 20) * (s.y[i] - lo) / (hi - lo);
        if (i) pg.lineTo(px, py); else pg.moveTo(px, py);
      });
      pg.stroke();
      pg.fillStyle = pg.strokeStyle;
      pg.fillText(s.name + " [" + lo.toExponential(1) + ", " + hi.toExponential(1) + "]", 4, H - 3 - 12 * (D.series.length - 1 - k));
    });
    var cx = W * (t - t0) / ((t1 - t0) || 1);
    pg.strokeStyle = "#888";
    pg.beginPath(); pg.moveTo(cx, 0); pg.lineTo(cx, H); pg.stroke();
  }

  var speed = 1, last = null;
  function tick(now) {
    if (playing) {
      if (last !== null) {
        t += speed * (now - last) / 1000;
        if (t > t1) t = t0 + (t - t1) % ((t1 - t0) || 1);
      }
      last = now;
      draw();
      requestAnimationFrame(tick);
    } else {
      last = null;
    }
  }
  function setPlaying(p) {
    playing = p && t1 > t0;
    play.textContent = playing ? "pause" : "play";
    if (playing) requestAnimationFrame(tick);
  }
  play.addEventListener("click", function () { setPlaying(!playing); });
  document.addEventListener("keydown", function (e) {
    if (e.key === " ") { e.preventDefault(); setPlaying(!playing); }
  });
  scrub.addEventListener("input", function () {
    t = t0 + (t1 - t0) * Number(scrub.value) / 1000;
    setPlaying(false);
    draw();
  });
  speedSel.addEventListener("change", function () { speed = Number(speedSel.value); });
  var drag = null;
  view.addEventListener("mousedown", function (e) { drag = [e.clientX, e.clientY]; view.style.cursor = "grabbing"; });
  window.addEventListener("mouseup", function () { drag = null; view.style.cursor = "grab"; });
  window.addEventListener("mousemove", function (e) {
    if (!drag) return;
    yaw -= 0.01 * (e.clientX - drag[0]);
    pitch = Math.max(-1.5, Math.min(1.5, pitch + 0.01 * (e.clientY - drag[1])));
    drag = [e.clientX, e.clientY];
    if (!playing) draw();
  });
  view.addEventListener("wheel", function (e) {
    e.preventDefault();
    zoom = Math.max(0.05, Math.min(20, zoom * Math.exp(0.001 * e.deltaY)));
    if (!playing) draw();
  }, { passive: false });
  window.addEventListener("resize", function () { resize(); draw(); });

  resize();
  var drawn = draw();
  console.log("spark-viewer: drew t=" + t.toFixed(3) + " triangles=" + drawn + " of " + ntri);
  setPlaying(playing);
})();
