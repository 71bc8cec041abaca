/* kedyn report: draws animation.json (docs/cli.md) on a canvas. Bodies are
 * drawn in their frame pose: point = origin + R (p + scale * d), with R
 * row-major (columns: the body's axes), p the body's undeformed points and
 * d their displacements in the body frame (a mode shape times sin of the
 * phase, or the recorded instant). The page state (frame, ticks, errors) is
 * written to #kd-state for automated checks. */
'use strict';
(function () {
  var state = document.getElementById('kd-state');
  var errors = 0, ticks = 0;
  function setState(k, v) { state.setAttribute('data-' + k, String(v)); }
  window.addEventListener('error', function () { errors++; setState('errors', errors); });
  setState('errors', 0);
  var holder = document.getElementById('kd-anim-data');
  if (!holder) { setState('status', 'no-animation'); return; }
  var A = JSON.parse(holder.textContent);
  var canvas = document.getElementById('kd-canvas'), ctx = canvas.getContext('2d');
  var itemSel = document.getElementById('kd-item'), playBtn = document.getElementById('kd-play');
  var scrub = document.getElementById('kd-time'), scaleIn = document.getElementById('kd-scale');
  var scaleOut = document.getElementById('kd-scale-value'), viewSel = document.getElementById('kd-view');
  var info = document.getElementById('kd-info');
  var isMechanism = A.bodies.some(function (b) { return b.type === 'rigid'; });
  /* plates are drawn in 3D (an axonometric projection) unless a plane is chosen */
  var hasPlate = A.bodies.some(function (b) { return b.type === 'plate'; });
  /* a spatial mechanism ("spatial": true) is drawn in an orthographic projection of a view
   * direction (azimuth a, elevation e): chosen (front, top, side, isometric) or turned by
   * dragging the mouse; the wheel zooms */
  var spatial = !!A.spatial;
  var VIEWS = { front: [0, 0], top: [0, 90], side: [90, 0], iso: [45, Math.asin(1 / Math.sqrt(3)) * 180 / Math.PI] };
  if (spatial) {
    viewSel.innerHTML = '';
    [['iso', 'isometric'], ['front', 'front (x-z)'], ['top', 'top (x-y)'], ['side', 'side (y-z)'], ['free', 'rotated']]
      .forEach(function (v) {
        var o = document.createElement('option');
        o.value = v[0]; o.textContent = v[1];
        viewSel.appendChild(o);
      });
    viewSel.title = 'drag the drawing to turn it, the wheel zooms';
  }
  var MODE_FRAMES = 48, COLORS = ['#1f5fbf', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085'];

  /* What can be animated: each mode of a modes set, each set with frames. */
  var items = [];
  A.sets.forEach(function (s) {
    if (s.modes) {
      s.modes.forEach(function (m, k) {
        items.push({ set: s, mode: k, n: MODE_FRAMES, label: s.label + ': ' + m.label });
      });
    } else if (s.frames && s.frames.length) {
      var tEnd = s.t[s.t.length - 1];
      items.push({ set: s, mode: -1, n: s.frames.length,
                   label: s.label + ': ' + s.type + ', ' + s.frames.length + ' instants to t = ' + tEnd + ' s' });
    }
  });
  items.forEach(function (it, i) {
    var o = document.createElement('option');
    o.value = String(i);
    o.textContent = it.label;
    itemSel.appendChild(o);
  });
  if (!items.length) { setState('status', 'nothing-to-animate'); return; }

  var cur = { item: items[0], frame: 0, playing: true, scale: 1, auto: 1, axes: [0, 1], box: null,
              az: 45, el: 35.26, zoom: 1, R: [[1, 0, 0], [0, 0, 1]] };
  /* The screen axes of the view direction: right r = (cos a, sin a, 0) and up
   * u = w x r of the unit vector w = (sin a cos e, -cos a cos e, sin e) towards the eye. */
  function setView() {
    var a = cur.az * Math.PI / 180, e = cur.el * Math.PI / 180;
    cur.R = [[Math.cos(a), Math.sin(a), 0], [-Math.sin(e) * Math.sin(a), Math.sin(e) * Math.cos(a), Math.cos(e)]];
  }

  function pose(it, f, b) { return it.mode >= 0 ? it.set.pose[b] : it.set.frames[f].pose[b]; }
  /* Displacements of body b at frame f and the factor they are multiplied by. */
  function disp(it, f, b) {
    if (it.mode >= 0) {
      var m = it.set.modes[it.mode].disp[b];
      return { d: m && m.length ? m : null, k: Math.sin(2 * Math.PI * f / MODE_FRAMES) };
    }
    var d = it.set.frames[f].disp;
    return { d: d && d[b] && d[b].length ? d[b] : null, k: 1 };
  }
  /* Global position of point i of body b at frame f, displacements times s. */
  function point(it, f, b, i, s, out) {
    var P = pose(it, f, b), p = A.bodies[b].points[i], D = disp(it, f, b);
    var l = [p[0], p[1], p[2]];
    if (D.d && s !== 0) for (var a = 0; a < 3; a++) l[a] += s * D.k * D.d[3 * i + a];
    for (var r = 0; r < 3; r++)
      out[r] = P[r] + P[3 + 3 * r] * l[0] + P[4 + 3 * r] * l[1] + P[5 + 3 * r] * l[2];
    return out;
  }
  function eachPoint(it, s, fn) {
    var g = [0, 0, 0];
    var step = Math.max(1, Math.floor(it.n / 100));
    for (var f = 0; f < it.n; f += step)
      for (var b = 0; b < A.bodies.length; b++)
        for (var i = 0; i < A.bodies[b].points.length; i++) fn(point(it, f, b, i, s, g), f, b, i);
  }
  /* Size of the undeformed geometry and the largest displacement: the
   * automatic scale makes the largest drawn displacement about a tenth of
   * the size (modes: 15 %), never below true size for time histories. */
  function autoScale(it) {
    var lo = [1e300, 1e300, 1e300], hi = [-1e300, -1e300, -1e300], dmax = 0;
    eachPoint(it, 0, function (g) {
      for (var a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], g[a]); hi[a] = Math.max(hi[a], g[a]); }
    });
    var L = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9);
    for (var f = 0; f < it.n; f++)
      for (var b = 0; b < A.bodies.length; b++) {
        var D = disp(it, f, b);
        if (!D.d) continue;
        for (var i = 0; i < D.d.length; i++) dmax = Math.max(dmax, Math.abs(D.d[i] * D.k));
      }
    if (dmax <= 0) return 1;
    return it.mode >= 0 ? 0.15 * L / dmax : Math.max(1, 0.1 * L / dmax);
  }
  /* The drawing plane: the chosen one, or the two global axes along which
   * the drawing extends most. */
  /* The drawing coordinates of a global point: two global axes, or in 3D the
   * projection seen from (1, -1, 1) (x to the right and down, y to the right
   * and up, z up). */
  var C30 = Math.cos(Math.PI / 6), S30 = 0.5;
  function proj(g) {
    if (cur.axes === 'view') {
      var R = cur.R;
      return [R[0][0] * g[0] + R[0][1] * g[1] + R[0][2] * g[2], R[1][0] * g[0] + R[1][1] * g[1] + R[1][2] * g[2]];
    }
    if (cur.axes === '3d') return [C30 * (g[0] + g[1]), g[2] + S30 * (g[1] - g[0])];
    return [g[cur.axes[0]], g[cur.axes[1]]];
  }
  function chooseAxes() {
    var v = viewSel.value;
    if (spatial) {
      if (VIEWS[v]) { cur.az = VIEWS[v][0]; cur.el = VIEWS[v][1]; }
      setView();
      return 'view';
    }
    if (v === '3d' || (v === 'auto' && hasPlate)) return '3d';
    if (v === 'xy') return [0, 1];
    if (v === 'xz') return [0, 2];
    if (v === 'yz') return [1, 2];
    var lo = [1e300, 1e300, 1e300], hi = [-1e300, -1e300, -1e300];
    eachPoint(cur.item, cur.scale, function (g) {
      for (var a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], g[a]); hi[a] = Math.max(hi[a], g[a]); }
    });
    var ext = [0, 1, 2].map(function (a) { return hi[a] - lo[a]; });
    var order = [0, 1, 2].sort(function (a, b) { return ext[b] - ext[a] || a - b; });
    return order.slice(0, 2).sort();
  }
  function computeBox() {
    if (spatial) {  /* the sphere about the drawing's bounding box: the same size in every view */
      var lo = [1e300, 1e300, 1e300], hi = [-1e300, -1e300, -1e300];
      eachPoint(cur.item, cur.scale, function (g) {
        for (var a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], g[a]); hi[a] = Math.max(hi[a], g[a]); }
      });
      var c = [0, 1, 2].map(function (a) { return 0.5 * (lo[a] + hi[a]); });
      var r = 0.5 * Math.max(Math.sqrt(Math.pow(hi[0] - lo[0], 2) + Math.pow(hi[1] - lo[1], 2) + Math.pow(hi[2] - lo[2], 2)), 1e-9);
      var pc = proj(c), rz = 0.7 * r / cur.zoom;  /* most views fill the canvas; the wheel zooms */
      cur.box = [pc[0] - rz, pc[1] - rz, pc[0] + rz, pc[1] + rz];
      return;
    }
    var box = [1e300, 1e300, -1e300, -1e300];
    eachPoint(cur.item, cur.scale, function (g) {
      var q = proj(g);
      box[0] = Math.min(box[0], q[0]); box[1] = Math.min(box[1], q[1]);
      box[2] = Math.max(box[2], q[0]); box[3] = Math.max(box[3], q[1]);
    });
    /* the extent along each axis (at least 5 % of the other: a straight
     * beam still gets room), drawn at one scale */
    var w = Math.max(box[2] - box[0], 1e-9), h = Math.max(box[3] - box[1], 1e-9);
    w = Math.max(w, 0.05 * h); h = Math.max(h, 0.05 * w);
    var cx = 0.5 * (box[0] + box[2]), cy = 0.5 * (box[1] + box[3]);
    cur.box = [cx - 0.55 * w, cy - 0.55 * h, cx + 0.55 * w, cy + 0.55 * h];
  }
  function toCanvas(g) {
    var b = cur.box, W = canvas.width, H = canvas.height, m = 40;
    var k = Math.min((W - 2 * m) / (b[2] - b[0]), (H - 2 * m) / (b[3] - b[1]));
    var cx = 0.5 * (b[0] + b[2]), cy = 0.5 * (b[1] + b[3]), q = proj(g);
    return [W / 2 + k * (q[0] - cx), H / 2 - k * (q[1] - cy)];
  }
  function polyline(it, f, b, s) {
    var pts = [], g = [0, 0, 0];
    for (var i = 0; i < A.bodies[b].points.length; i++) pts.push(toCanvas(point(it, f, b, i, s, g)));
    return pts;
  }
  /* The paths of a body (index lists into its points; default: all, in order). */
  function paths(body, pts) {
    if (!body.paths) return [pts];
    return body.paths.map(function (p) { return p.map(function (i) { return pts[i]; }); });
  }
  /* A fixed ground: hatching on the lower side of a rail, a triangle with a
   * hatched base under a pivot. */
  function hatchAlong(p, q) {
    var dx = q[0] - p[0], dy = q[1] - p[1], L = Math.sqrt(dx * dx + dy * dy);
    if (!(L > 0)) return;
    var ux = dx / L, uy = dy / L, nx = -uy, ny = ux;
    if (ny < 0) { nx = -nx; ny = -ny; }
    for (var s = 4; s < L; s += 9) {
      var x = p[0] + ux * s, y = p[1] + uy * s;
      stroke([[x, y], [x + 7 * nx - 6 * ux, y + 7 * ny - 6 * uy]]);
    }
  }
  function pivot(p) {
    ctx.beginPath();
    ctx.moveTo(p[0], p[1]); ctx.lineTo(p[0] - 9, p[1] + 14); ctx.lineTo(p[0] + 9, p[1] + 14); ctx.closePath();
    ctx.stroke();
    stroke([[p[0] - 14, p[1] + 14], [p[0] + 14, p[1] + 14]]);
    hatchAlong([p[0] - 14, p[1] + 14], [p[0] + 14, p[1] + 14]);
  }
  function drawGround(body, pts) {
    ctx.setLineDash([]); ctx.strokeStyle = '#555555'; ctx.lineWidth = 1.5;
    paths(body, pts).forEach(function (p) {
      ctx.lineWidth = 2.5; stroke(p); ctx.lineWidth = 1;
      for (var i = 1; i < p.length; i++) hatchAlong(p[i - 1], p[i]);
    });
    (body.hatch || []).forEach(function (i) { pivot(pts[i]); });
  }
  /* Joints: small circles, white inside. */
  function drawJoints(body, pts, color) {
    ctx.setLineDash([]); ctx.lineWidth = 2; ctx.strokeStyle = color; ctx.fillStyle = '#ffffff';
    (body.joints || []).forEach(function (i) {
      ctx.beginPath(); ctx.arc(pts[i][0], pts[i][1], 4.5, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    });
  }
  function stroke(pts, closed) {
    ctx.beginPath();
    pts.forEach(function (p, i) { if (i) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
    if (closed) ctx.closePath();
    ctx.stroke();
  }
  function draw() {
    var it = cur.item, f = cur.frame, W = canvas.width, H = canvas.height, drawn = 0, moved = 0;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, H);
    /* global axes through the origin */
    var o = toCanvas([0, 0, 0]), names = 'xyz';
    ctx.strokeStyle = '#cccccc'; ctx.lineWidth = 1; ctx.setLineDash([]);
    ctx.fillStyle = '#888888'; ctx.font = '12px sans-serif';
    if (cur.axes === 'view') {  /* the three global axes from the origin, a tenth of the drawing */
      var Lv = 0.1 * (cur.box[2] - cur.box[0]);
      for (var av = 0; av < 3; av++) {
        var ev = [0, 0, 0]; ev[av] = Lv;
        var tv = toCanvas(ev);
        stroke([o, tv]); ctx.fillText(names[av], tv[0] + 3, tv[1] - 3);
      }
    } else if (cur.axes === '3d') {  /* the three global axes from the origin, a tenth of the drawing */
      var L = 0.1 * Math.max(cur.box[2] - cur.box[0], cur.box[3] - cur.box[1]) / C30;
      for (var a = 0; a < 3; a++) {
        var e = [0, 0, 0]; e[a] = L;
        var t = toCanvas(e);
        stroke([o, t]); ctx.fillText(names[a], t[0] + 3, t[1] - 3);
      }
    } else {
      stroke([[0, o[1]], [W, o[1]]]); stroke([[o[0], 0], [o[0], H]]);
      ctx.fillText(names[cur.axes[0]], W - 14, o[1] - 4); ctx.fillText(names[cur.axes[1]], o[0] + 4, 12);
    }
    for (var b = 0; b < A.bodies.length; b++) {
      var body = A.bodies[b];
      if (!body.points.length) continue;
      var closed = !!body.closed, color = COLORS[b % COLORS.length];
      /* paths of traced points over the whole set, thin */
      (body.trace || []).forEach(function (i) {
        var tr = [], g = [0, 0, 0];
        for (var k = 0; k < it.n; k++) tr.push(toCanvas(point(it, k, b, i, cur.scale, g)));
        ctx.setLineDash([]); ctx.strokeStyle = color + '88'; ctx.lineWidth = 1.5;
        stroke(tr, false);
      });
      if (body.type === 'ground') {
        var gp = polyline(it, f, b, 0);
        drawGround(body, gp);
        drawJoints(body, gp, '#555555');
        gp.forEach(function (p) { if (isFinite(p[0]) && isFinite(p[1])) drawn++; });
        continue;
      }
      /* the undeformed body in its current pose, dashed (bodies that deform) */
      ctx.strokeStyle = '#aaaaaa'; ctx.lineWidth = 1; ctx.setLineDash([5, 4]);
      /* (a plate of a spatial mechanism, a link: its mesh thin, the deformed one over it) */
      if (disp(it, f, b).d && (body.type !== 'plate' || spatial)) {
        if (body.type === 'plate') { ctx.strokeStyle = '#cccccc'; ctx.lineWidth = 0.75; }
        paths(body, polyline(it, f, b, 0)).forEach(function (p) { stroke(p, closed); });
      }
      /* the deformed body */
      var pts = polyline(it, f, b, cur.scale);
      ctx.setLineDash([]); ctx.strokeStyle = color; ctx.lineWidth = body.type === 'rigid' ? 5 : body.type === 'plate' ? 1 : 3;
      paths(body, pts).forEach(function (p) {
        if (closed) { ctx.fillStyle = color + '33'; ctx.beginPath(); }
        stroke(p, closed);
        if (closed) ctx.fill();
      });
      ctx.fillStyle = color;
      /* dots at the nodes (all points of a body without node or joint marks) */
      if (!body.joints) pts.forEach(function (p, i) {
        if (body.node && !body.node[i]) return;
        ctx.beginPath(); ctx.arc(p[0], p[1], 3, 0, 2 * Math.PI); ctx.fill();
      });
      drawJoints(body, pts, color);
      ctx.fillStyle = color;
      /* the name: at the end of a beam (the middle of a link of a mechanism, whose ends are
       * joints), at the middle of a rigid body's joints */
      var lp = pts[isMechanism && body.type === 'beam' ? pts.length >> 1 : pts.length - 1];
      if (body.joints && body.joints.length) {
        lp = [0, 0];
        body.joints.forEach(function (i) { lp[0] += pts[i][0] / body.joints.length; lp[1] += pts[i][1] / body.joints.length; });
      }
      ctx.fillText(body.name, lp[0] + 6, lp[1] - 8);
      /* what reached the canvas (finite coordinates), for automated checks */
      pts.forEach(function (p) { if (isFinite(p[0]) && isFinite(p[1])) drawn++; });
      /* the largest drawn displacement of the instant, m (scale times the deflection) */
      var Db = disp(it, f, b);
      if (Db.d) for (var di = 0; di + 2 < Db.d.length; di += 3)
        moved = Math.max(moved, Math.abs(cur.scale * Db.k) * Math.hypot(Db.d[di], Db.d[di + 1], Db.d[di + 2]));
    }
    /* the rods of distance joints between two bodies' points */
    (A.rods || []).forEach(function (rd) {
      var g0 = toCanvas(point(it, f, rd[0], rd[1], cur.scale, [0, 0, 0]));
      var g1 = toCanvas(point(it, f, rd[2], rd[3], cur.scale, [0, 0, 0]));
      ctx.setLineDash([]); ctx.strokeStyle = '#806000'; ctx.lineWidth = 3;
      stroke([g0, g1]);
      ctx.fillStyle = '#806000';
      [g0, g1].forEach(function (p) { ctx.beginPath(); ctx.arc(p[0], p[1], 3.5, 0, 2 * Math.PI); ctx.fill(); });
      if (isFinite(g0[0]) && isFinite(g1[0])) drawn += 2;
    });
    ctx.fillStyle = '#222222'; ctx.font = '14px sans-serif';
    var when = it.mode >= 0 ? 'phase ' + Math.round(360 * f / MODE_FRAMES) + ' deg'
                            : 't = ' + it.set.t[f].toPrecision(5) + ' s';
    ctx.fillText(it.label, 12, 20);
    ctx.fillText(when + ',  displacements x ' + cur.scale.toPrecision(3), 12, 40);
    if (spatial) ctx.fillText('view: azimuth ' + Math.round(cur.az) + ' deg, elevation ' + Math.round(cur.el) + ' deg', 12, 60);
    info.textContent = when;
    scrub.value = String(f);
    setState('frame', f); setState('ticks', ticks); setState('drawn', drawn); setState('moved', moved.toPrecision(4));
    if (spatial) setState('view', viewSel.value + ' ' + Math.round(cur.az) + ' ' + Math.round(cur.el));
  }
  function setScale() {
    /* the slider: the automatic scale times 10^value; report.html#scale=S: S itself (0: rigid) */
    cur.scale = cur.fixed !== undefined ? cur.fixed : cur.auto * Math.pow(10, Number(scaleIn.value));
    scaleOut.textContent = 'x ' + cur.scale.toPrecision(3);
    cur.axes = chooseAxes();
    computeBox();
  }
  function selectItem(i) {
    cur.item = items[i];
    cur.frame = 0;
    cur.auto = autoScale(cur.item);
    scrub.max = String(cur.item.n - 1);
    setScale();
    draw();
  }
  itemSel.addEventListener('change', function () { selectItem(Number(itemSel.value)); });
  scaleIn.addEventListener('input', function () { cur.fixed = undefined; setScale(); draw(); });
  viewSel.addEventListener('change', function () { setScale(); draw(); });
  scrub.addEventListener('input', function () { cur.frame = Number(scrub.value); draw(); });
  if (spatial) {  /* drag: turn the view (horizontal: azimuth, vertical: elevation); wheel: zoom */
    var drag = null;
    canvas.style.touchAction = 'none';  /* pointer events: a mouse, a pen or a finger */
    canvas.style.cursor = 'grab';
    canvas.addEventListener('pointerdown', function (ev) { drag = [ev.clientX, ev.clientY]; ev.preventDefault(); });
    window.addEventListener('pointerup', function () { drag = null; });
    window.addEventListener('pointermove', function (ev) {
      if (!drag) return;
      cur.az -= 0.4 * (ev.clientX - drag[0]);
      cur.el = Math.max(-90, Math.min(90, cur.el + 0.4 * (ev.clientY - drag[1])));
      drag = [ev.clientX, ev.clientY];
      viewSel.value = 'free';
      setView(); computeBox(); draw();
    });
    canvas.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      cur.zoom = Math.max(0.1, Math.min(50, cur.zoom * Math.exp(-0.0015 * ev.deltaY)));
      computeBox(); draw();
    }, { passive: false });
  }
  playBtn.addEventListener('click', function () {
    cur.playing = !cur.playing;
    playBtn.textContent = cur.playing ? 'Pause' : 'Play';
  });
  setInterval(function () {
    if (!cur.playing) return;
    cur.frame = (cur.frame + 1) % cur.item.n;
    ticks++;
    draw();
  }, 40);
  /* report.html#item=N opens the N-th entry of the animation list (0-based); with
   * &view=NAME (a spatial mechanism: front, top, side, iso) in that view, with &frame=N paused
   * at that instant; &drag=DX,DY drags the drawing by DX, DY pixels (pointer events on the
   * canvas, as a mouse would: automated checks of the rotation). */
  var hash = {};
  (window.location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
    var m = /^(item|view|frame|drag|scale)=([A-Za-z0-9,.+-]+)$/.exec(kv);
    if (m) hash[m[1]] = m[2];
  });
  var i0 = /^\d+$/.test(hash.item || '') && Number(hash.item) < items.length ? Number(hash.item) : 0;
  if (hash.view && Array.prototype.some.call(viewSel.options, function (o) { return o.value === hash.view; }))
    viewSel.value = hash.view;
  itemSel.value = String(i0);
  if (isFinite(Number(hash.scale)) && hash.scale !== undefined) cur.fixed = Number(hash.scale);
  selectItem(i0);
  if (/^\d+$/.test(hash.frame || '')) {
    cur.playing = false;
    playBtn.textContent = 'Play';
    cur.frame = Math.min(Number(hash.frame), cur.item.n - 1);
    draw();
  }
  var dragBy = /^(-?\d+),(-?\d+)$/.exec(hash.drag || '');
  if (spatial && dragBy) {
    var rc = canvas.getBoundingClientRect(), x0 = rc.left + rc.width / 2, y0 = rc.top + rc.height / 2;
    var pe = function (type, target, x, y) {
      target.dispatchEvent(new PointerEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y }));
    };
    pe('pointerdown', canvas, x0, y0);
    pe('pointermove', canvas, x0 + Number(dragBy[1]) / 2, y0 + Number(dragBy[2]) / 2);
    pe('pointermove', canvas, x0 + Number(dragBy[1]), y0 + Number(dragBy[2]));
    pe('pointerup', canvas, x0 + Number(dragBy[1]), y0 + Number(dragBy[2]));
  }
  setState('status', 'running');
})();
