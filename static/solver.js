// Solver pages: arrow keys, Home and End follow the step links; Play steps
// through the optimal game on a timer; Full screen for the classroom. The
// pages work without this file: every step is a plain link.
(function () {
  "use strict";

  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  var timer = null;

  function link(key) {
    // A link on the classroom's pages, a form's button on a live session's.
    var selector = '[data-step-key="' + key + '"]';
    return document.querySelector(".stepper a" + selector + "[href], .stepper button" + selector + ":not([disabled])");
  }

  // Keys pressed while a step is loading wait their turn, so two quick
  // presses always move two steps.
  var busy = false, queued = [];

  function follow(key) {
    if (busy) {
      if (queued.length < 10) queued.push(key);
      return true;
    }
    var a = link(key);
    if (a) { a.click(); return true; }
    return false;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.closest && event.target.closest(".stepper")) busy = true;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail.successful) { busy = false; queued = []; }
  });

  function playButton() { return document.querySelector("[data-play]"); }

  function setPlaying(on) {
    var button = playButton();
    clearInterval(timer);
    timer = null;
    if (on) {
      timer = setInterval(function () {
        if (!follow("next")) setPlaying(false);
      }, 1200);
    }
    if (button) {
      button.textContent = on ? (button.dataset.pauseLabel || "Pause") : (button.dataset.playLabel || "Play");
      button.setAttribute("aria-pressed", on ? "true" : "false");
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    var key = KEYS[event.key];
    if (!key || !document.querySelector(".stepper")) return;
    var target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    if (follow(key)) {
      if (timer && key !== "next") setPlaying(false);
      event.preventDefault();
    }
  });

  document.addEventListener("click", function (event) {
    var play = event.target.closest("[data-play]");
    if (play) {
      if (timer) { setPlaying(false); return; }
      // From the end, play starts again from the first guess.
      if (!link("next")) follow("first");
      setPlaying(true);
      return;
    }
    if (event.target.closest("[data-print]")) {
      window.print();
      return;
    }
    if (event.target.closest("[data-fullscreen]")) {
      var root = document.documentElement;
      if (document.fullscreenElement) document.exitFullscreen();
      else if (root.requestFullscreen) root.requestFullscreen();
    }
  });

  // A live class's countdown: the seconds left to propose, every quarter
  // second, from the deadline the server set (the page says the rule in
  // words without this).
  function tick() {
    var nodes = document.querySelectorAll(".countdown[data-deadline]");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var left = Math.ceil((Number(node.dataset.deadline) - Date.now()) / 1000);
      var shown = node.querySelector(".countdown-left");
      if (!shown) continue;
      if (left > 0) {
        shown.textContent = left + " s";
        node.classList.toggle("closing", left <= 5);
      } else {
        shown.textContent = node.dataset.closed || "";
        node.classList.add("closed");
        var form = node.parentNode && node.parentNode.querySelector("form.vote button[type=submit]");
        if (form) form.disabled = true;
      }
    }
  }
  setInterval(tick, 250);
  document.addEventListener("htmx:afterSettle", tick);

  // The strategy tree: after a branch opens, focus goes to the new node's
  // heading; after it closes, back to the link that opens it again.
  var treeReply = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var branch = event.target.closest && event.target.closest(".branches > li");
    treeReply = branch ? branch.dataset.reply : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!treeReply || !event.target.classList || !event.target.classList.contains("branches")) return;
    var list = document.getElementById(event.target.id) || event.target;
    var branch = list.querySelector(':scope > li[data-reply="' + treeReply + '"]');
    treeReply = null;
    if (!branch) return;
    var target = branch.classList.contains("open") ? branch.querySelector("[data-opened]") : branch.querySelector("a.toggle");
    if (target) target.focus();
  });

  // The step region is replaced on every step: keep focus on the control
  // that was used (or the nearest one still enabled), and keep Play's state.
  var focusedKey = null;
  document.addEventListener("htmx:beforeSwap", function () {
    var active = document.activeElement;
    focusedKey = active && active.dataset ? active.dataset.stepKey || (active.hasAttribute("data-play") ? "play" : null) : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    busy = false;
    if (queued.length) { follow(queued.shift()); }
    var button = playButton();
    if (button && timer) { button.textContent = button.dataset.pauseLabel || "Pause"; button.setAttribute("aria-pressed", "true"); }
    if (!focusedKey) return;
    var target = focusedKey === "play" ? button : link(focusedKey);
    if (!target) target = link("prev") || link("next") || link("first");
    if (target) target.focus();
    focusedKey = null;
  });
})();
