export function App() {
  return <div className="app">hello</div>;
}
