// Fill the status list from the proxied API.
(async () => {
  const list = document.getElementById('status');
  try {
    const res = await fetch('/api/status');
    if (!res.ok) throw new Error('HTTP ' + res.status);
    const data = await res.json();
    list.innerHTML = '';
    for (const item of data.components) {
      const li = document.createElement('li');
      li.textContent = item.name + ': ' + item.state;
      li.className = item.state === 'up' ? 'ok' : 'err';
      list.appendChild(li);
    }
  } catch (e) {
    list.innerHTML = '<li class="err">API unavailable: ' + e.message + '</li>';
  }
})();
