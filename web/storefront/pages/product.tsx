import { useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import type { components } from "../../api/schema.d.ts";
import { Alert, Loading, TextField, usePageTitle } from "../../shared/ui.tsx";
import { AddToCart, Heat, Price, ProductImage } from "../components.tsx";

type Product = components["schemas"]["Product"];

/** One sauce: its description, price, heat and stock, and a quantity to add to the cart. */
export function ProductPage() {
  const { params } = useRoute();
  const [product, setProduct] = useState<Product | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [quantity, setQuantity] = useState("1");
  usePageTitle(product?.name ?? "Sauce", "Storefront");

  useEffect(() => {
    setProduct(null);
    setProblem(null);
    unwrap(api.GET("/api/products/{id}", { params: { path: { id: params.slug ?? "" } } }))
      .then((answer) => setProduct(answer.data))
      .catch((error: unknown) => setProblem(problemFrom(error)));
  }, [params.slug]);

  if (problem)
    return (
      <>
        <h1>{problem.status === 404 ? "No such sauce" : "This sauce could not be shown"}</h1>
        <Alert problem={problem} />
        <p>
          <a href="/">Back to the catalog</a>
        </p>
      </>
    );
  if (!product) return <Loading />;
  const count = Number.parseInt(quantity, 10);
  const valid = Number.isInteger(count) && count >= 1 && count <= product.inventory;
  return (
    <article class="two-columns product">
      <div>
        <ProductImage src={product.featuredImage} name={product.name} heat={product.heatLevel} />
      </div>
      <div>
        <h1>
          <bdi>{product.name}</bdi>
        </h1>
        <p class="product__price">
          <Price price={product.price} compareAtPrice={product.compareAtPrice} />
        </p>
        <p>
          <Heat level={product.heatLevel} />
        </p>
        <p>{product.description}</p>
        <p class="muted">{product.inventory > 0 ? `${product.inventory} in stock` : "Out of stock"}</p>
        {product.inventory > 0 && (
          <div class="panel">
            <TextField
              label="Quantity"
              name="quantity"
              type="number"
              inputMode="numeric"
              min={1}
              max={product.inventory}
              value={quantity}
              onValue={setQuantity}
              error={valid || quantity === "" ? undefined : `Choose 1 to ${product.inventory}`}
            />
            <AddToCart productId={product.id} name={product.name} quantity={valid ? count : 1} disabled={!valid} />
          </div>
        )}
        <p>
          <a href="/">Back to the catalog</a>
        </p>
      </div>
    </article>
  );
}
