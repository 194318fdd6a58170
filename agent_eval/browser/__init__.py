"""The browser host: a game page in headless Chromium (Playwright), outside the agent's sandbox, in a jail of its
own, on a clock only the harness moves. Shared by the browser-game kinds (AI GameStore, GameWorld); it imports
only datamodel/.

host.py        PageHost: starts the page host in its jail, opens a page, runs batches of steps, replays them;
               Capture, Batch, BrowserError, chromium_missing
steps.py       the steps a batch holds (keys, mouse, advance the clock with a capture, screenshot, eval), as JSON
jail.py        the bubblewrap jail of the page host (no network, read-only game folder and libraries)
libraries.py   CDN URLs answered from the pinned npm copies (package.json's pageLibraries)
page_host.py   the script run in the jail (never imported here): Playwright, request interception, the steps
clock.js       the page's virtual clock and seeded randomness (an init script)
"""
