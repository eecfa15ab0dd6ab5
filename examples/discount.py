# The README's walk-through adds this script (`cloudkitty pyscript create discount examples/discount.py`):
# 10 % off every instance. A script gets the dataframe being priced as `data` (docs/rating.md §6),
# with decimal.Decimal prices, and leaves it, changed, in `data`.
from decimal import Decimal

for point in data['usage'].get('instance', []):
    point['rating']['price'] = point['rating']['price'] * Decimal('0.9')
