import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { createWebSocketApi } from './api/ws-client'
import { useInspector } from './state/store'
import './app.css'

// Electron's preload provides window.api; in a browser the page was served by `gamewire serve`, whose
// WebSocket carries the same API.
void useInspector.getState().start(window.api ?? createWebSocketApi())

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>
)
