// hookrelay console: live mode of the events page. Every other page works
// without script.
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box) { return; }
  var state = document.getElementById("live-state");
  var timer = null;

  function setURL(on) {
    var url = new URL(window.location.href);
    if (on) { url.searchParams.set("live", "1"); } else { url.searchParams.delete("live"); }
    window.history.replaceState(null, "", url);
  }

  function refresh() {
    var url = new URL(window.location.href);
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (resp) {
        if (!resp.ok) { throw new Error("HTTP " + resp.status); }
        return resp.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("#events tbody");
        var current = document.querySelector("#events tbody");
        // The rows are swapped inside the existing tbody, so the element
        // (and anything holding it) stays the same across refreshes.
        if (fresh && current) { current.replaceChildren.apply(current, Array.from(fresh.childNodes)); }
        state.textContent = "updated " + new Date().toLocaleTimeString();
      })
      .catch(function (err) { state.textContent = "paused: " + err.message; });
  }

  function apply() {
    if (timer) { clearInterval(timer); timer = null; }
    if (box.checked && !box.disabled) {
      timer = setInterval(refresh, 3000);
      state.textContent = "on";
    } else if (!box.disabled) {
      state.textContent = "";
    }
  }

  box.addEventListener("change", function () { setURL(box.checked); apply(); });
  apply();
})();
