// Board keyboard and palette support. The form works without this file:
// it only fills the same text field by clicks and keys, checks the guess
// before it is sent, and puts focus back on the input after htmx swaps.
(function () {
  "use strict";

  function game() { return document.getElementById("game"); }
  function input() { return document.getElementById("guess-input"); }

  function digits(value) { return (value || "").replace(/[^0-9]/g, ""); }

  function render() {
    var field = input(), box = game();
    if (!field || !box) return;
    var slots = box.querySelectorAll(".slots .peg");
    var value = digits(field.value);
    slots.forEach(function (slot, i) {
      var digit = value[i];
      var source = digit && box.querySelector('.palette [data-color="' + digit + '"]');
      if (source) {
        slot.className = "peg filled c" + digit;
        slot.innerHTML = source.innerHTML;
      } else {
        slot.className = "peg empty";
        slot.innerHTML = "<b>&nbsp;</b>";
      }
    });
  }

  function add(digit) {
    var field = input(), box = game();
    if (!field || !box) return;
    var pegs = Number(box.dataset.pegs);
    var value = digits(field.value);
    if (value.length >= pegs) return;
    field.value = value + digit;
    message("");
    render();
  }

  function removeLast() {
    var field = input();
    if (!field) return;
    field.value = digits(field.value).slice(0, -1);
    render();
  }

  function message(text) {
    var box = document.getElementById("guess-error");
    if (box) box.textContent = text;
    var field = input();
    if (field) {
      if (text) field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
    }
  }

  // The colour a typed digit names: 0 is the tenth colour of a ten-colour game.
  function colour(digit, colors) {
    var d = Number(digit);
    return d === 0 && colors === 10 ? 10 : d;
  }
  // What the scripts say, in the page's language (base.html writes it).
  var said = null;
  function words(key) {
    if (said === null) {
      var source = document.getElementById("script-words");
      said = source ? JSON.parse(source.textContent) : {};
    }
    return said[key] || "";
  }
  // The board's sentences for a typed guess, the server's own (see _game.html).
  function check(key, given, length) {
    var checks = JSON.parse(game().dataset.checks || "{}");
    return (checks[key] || "").replace("{given}", given || "").replace("{length}", length || "");
  }

  // The same checks the server makes, so the player hears why at once.
  function problem() {
    var field = input(), box = game();
    var pegs = Number(box.dataset.pegs), colors = Number(box.dataset.colors);
    var raw = field.value.replace(/[\s,\-]/g, "");
    if (!raw) return check("empty");
    var bad = raw.replace(/[0-9]/g, "");
    if (bad) return check("notDigit", "'" + bad[0] + "'");
    if (raw.length !== pegs) return check("length", raw, String(raw.length));
    for (var i = 0; i < raw.length; i++) {
      var d = colour(raw[i], colors);
      if (d < 1 || d > colors) return check("outside", raw[i]);
    }
    return "";
  }

  function submit() {
    var form = document.getElementById("guess-form");
    if (form) form.requestSubmit();
  }

  // The palette is one Tab stop: arrow keys move between its buttons
  // (a roving tabindex); digits still add a colour from anywhere.
  function paletteButtons() {
    return Array.prototype.slice.call(document.querySelectorAll("#guess-form .palette button"));
  }
  function rove(active) {
    paletteButtons().forEach(function (b) { b.tabIndex = b === active ? 0 : -1; });
  }
  function initPalette() {
    var buttons = paletteButtons();
    if (buttons.length && !buttons.some(function (b) { return b.tabIndex === 0; })) rove(buttons[0]);
  }
  document.addEventListener("keydown", function (event) {
    var button = event.target.closest && event.target.closest("#guess-form .palette button");
    if (!button) return;
    var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    var buttons = paletteButtons();
    var i = buttons.indexOf(button);
    var next = null;
    if (event.key in moves) next = buttons[(i + moves[event.key] + buttons.length) % buttons.length];
    else if (event.key === "Home") next = buttons[0];
    else if (event.key === "End") next = buttons[buttons.length - 1];
    if (next) {
      rove(next);
      next.focus();
      event.preventDefault();
    }
  });
  document.addEventListener("focusin", function (event) {
    var button = event.target.closest && event.target.closest("#guess-form .palette button");
    if (button) rove(button);
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("#guess-form .palette button");
    if (!button) return;
    if (button.dataset.action === "backspace") removeLast();
    else add(button.dataset.color);
  });

  document.addEventListener("input", function (event) {
    if (event.target === input()) { message(""); render(); }
  });

  document.addEventListener("keydown", function (event) {
    var field = input();
    if (!field || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target === field) return; // the text field handles its own keys
    if (target.closest && target.closest("input, textarea, select, a, summary")) return;
    var onButton = target.tagName === "BUTTON";
    if (/^[0-9]$/.test(event.key)) {
      var colors = Number(game().dataset.colors);
      var d = colour(event.key, colors);
      if (d >= 1 && d <= colors) add(event.key);
      else message(check("outside", event.key));
      event.preventDefault();
    } else if (event.key === "Backspace") {
      removeLast();
      event.preventDefault();
    } else if (event.key === "Enter" && !onButton) {
      submit();
      event.preventDefault();
    }
  });

  document.addEventListener("submit", function (event) {
    if (event.target.id !== "guess-form") return;
    var why = problem();
    if (why) {
      message(why);
      event.preventDefault();
      event.stopImmediatePropagation();
      input().focus();
    }
  }, true);

  // After a guess, put focus where the player continues: the guess field,
  // or the outcome once the game is over. Other swaps (a hint, the count)
  // do not put it in the field, so a phone's keyboard does not pop up; a
  // hint's code is in the field with the caret after it. Only the guess's
  // own answer counts: a poll settling in between changes nothing.
  var afterGuess = false;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.id === "guess-form") afterGuess = true;
  });
  var refocus = null;
  document.addEventListener("htmx:afterSettle", function (event) {
    render();
    var field = input();
    if (field) {
      var end = field.value.length;
      try { field.setSelectionRange(end, end); } catch (e) { /* not a text field */ }
    }
    var config = event.detail && event.detail.requestConfig;
    if (!afterGuess || !config || !config.elt || config.elt.id !== "guess-form") return;
    afterGuess = false;
    clearTimeout(refocus);
    refocus = setTimeout(function () {
      var target = input() || document.getElementById("outcome");
      if (target && document.activeElement !== target) target.focus();
    }, 0);
  });

  // Other forms whose answer replaces them (the count, a hint, the
  // code-maker's answer and its undo) would leave focus nowhere: it goes
  // back to the same form in the new content (its chosen radio button, else
  // its button), or to the outcome when the form is gone.
  // A poll (a job's progress) in between neither drops nor takes the form's turn.
  var keptForm = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.target.closest && event.target.closest("form");
    if (!form || form.id === "guess-form") return;
    var active = document.activeElement;
    keptForm = form.id && active && form.contains(active) ? form : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail && event.detail.requestConfig;
    if (!keptForm || !config || config.elt !== keptForm) return;
    var id = keptForm.id;
    keptForm = null;
    var active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return; // focus is somewhere already
    var form = document.getElementById(id);
    var target = form ? form.querySelector("input:checked, button[type=submit]") : document.getElementById("outcome");
    if (!target && id === "undo-form") target = document.querySelector("#answer-form input:checked");
    if (target) target.focus();
  });

  // While a hint is being worked out, its button says so.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.target.closest && event.target.closest("form.suggest");
    if (!form) return;
    var button = form.querySelector("button[type=submit]");
    button.setAttribute("aria-busy", "true");
    button.dataset.label = button.textContent;
    button.textContent = words("working");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target.closest && event.target.closest("form.suggest");
    var button = form && form.querySelector("button[type=submit]");
    if (button && button.dataset.label) {
      button.textContent = button.dataset.label;
      button.removeAttribute("aria-busy");
    }
  });

  // The description beside the strategy selector follows the choice.
  document.addEventListener("change", function (event) {
    if (event.target.id !== "strategy-select") return;
    var about = document.getElementById("strategy-about");
    var option = event.target.selectedOptions[0];
    if (about && option) about.textContent = option.dataset.about || option.title;
  });

  // The share panel's copy button; the text stays selectable without it.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.querySelector(button.dataset.copy);
    var status = button.parentElement.querySelector(".copied");
    function done(text) { if (status) status.textContent = text; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.value).then(function () { done(words("copied")); },
        function () { source.select(); done(words("copyByHand")); });
    } else {
      source.focus();
      source.select();
      done(words("copyByHand"));
    }
  });

  // An answer htmx cannot swap in (a 5xx, or no answer at all): say so
  // where the player looks, instead of dropping the guess silently.
  function failed(event) {
    var xhr = event.detail.xhr;
    var said = xhr && xhr.getResponseHeader("X-Message");
    var text = (said && decodeURIComponent(said)) ||
      (xhr && xhr.status ? words("serverError").replace("{status}", xhr.status) : words("unreachable"));
    var box = document.getElementById("guess-error") || document.getElementById("page-error");
    if (box) {
      box.textContent = text;
      box.setAttribute("role", "alert");
    }
  }
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:sendError", failed);

  // The theme and language forms name the page to come back to as it was
  // served; stepping with htmx (the classroom, a replay) has moved the
  // address since, so they send the address shown now (without "lang",
  // which would outrank the language just chosen).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var next = form.classList && form.classList.contains("theme-choice") && form.querySelector('input[name="next"]');
    if (!next) return;
    var here = new URL(window.location.href);
    if (here.searchParams.has("lang")) here.searchParams.delete("lang");  // else the query stays as written
    next.value = here.pathname + here.search;
    // A guess half typed comes back with the page (for this tab only).
    var field = input();
    if (field && field.value) {
      try { sessionStorage.setItem(DRAFT_KEY + location.pathname, field.value); } catch (e) { /* storage off */ }
    }
  });

  var DRAFT_KEY = "mastermind-draft:";
  function restoreDraft() {
    var field = input(), draft = null;
    try {
      draft = sessionStorage.getItem(DRAFT_KEY + location.pathname);
      sessionStorage.removeItem(DRAFT_KEY + location.pathname);
    } catch (e) { return; }
    if (field && draft) field.value = draft;
  }

  // A page restored from the back-forward cache may show an old board: load it afresh.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && game()) window.location.reload();
  });

  document.addEventListener("DOMContentLoaded", function () { restoreDraft(); render(); initPalette(); });
  document.addEventListener("htmx:afterSettle", initPalette);
})();
