// ui://avenir/confirm.html: the card every confirmed write tool names in _meta.ui.resourceUri.
// The host hands it the write's result (ui/notifications/tool-result); the card does the rest.

import { Card } from "./card";
import { openView } from "./common";

const root = document.getElementById("root") as HTMLElement;
let card: Card | undefined;
const app = openView("confirm", {
  onResult(r) {
    card?.show(r, "host");
  },
});
card = new Card(app, root);
