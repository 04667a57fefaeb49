package web

import "github.com/go-chi/chi/v5"

// proxyState is the ACP proxy's part of the Server. (Owned by the proxy work.)
type proxyState struct{}

func (s *Server) proxyAPI(r chi.Router) {}
