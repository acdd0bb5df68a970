export function App() {
  return <div className="app">hi</div>;
}
