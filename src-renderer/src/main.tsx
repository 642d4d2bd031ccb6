import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { createWebSocketApi, serveToken } from './api/ws-client'
import { NoToken } from './components/NoToken'
import { useInspector } from './state/store'
import './app.css'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

// Electron's preload provides window.api; in a browser the page was served by `gamewire serve`, whose
// WebSocket carries the same API and needs the token in the URL serve printed.
const token = window.api ? null : serveToken()
if (window.api || token) {
  void useInspector.getState().start(window.api ?? createWebSocketApi(token!))
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>
  )
} else {
  createRoot(root).render(<NoToken />)
}
